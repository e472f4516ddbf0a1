# Issue reproduction: page.end_index() with orphans
from pagekit import Paginator


def test_end_index_of_each_page():
    paginator = Paginator(list(range(1, 24)), per_page=10, orphans=3)
    page1 = paginator.page(1)
    page2 = paginator.page(2)

    assert page1.end_index() == 10
    # page 2 is a full page of 10 items
    assert page2.end_index() == 20
    # the 3 orphans end up on page 3
    page3 = paginator.page(3)
    assert page3.start_index() == 21
    assert page3.end_index() == 23
