import pytest

from pagekit import EmptyPage, Paginator


@pytest.mark.parametrize("per_page, orphans", [(10, 3), (5, 1), (4, 2)])
def test_orphans_equal_to_leftover_are_merged(per_page, orphans):
    count = per_page * 2 + orphans
    items = list(range(count))
    paginator = Paginator(items, per_page=per_page, orphans=orphans)

    assert paginator.num_pages == 2
    last = paginator.page(2)
    assert list(last) == items[per_page:]
    assert last.end_index() == count
    with pytest.raises(EmptyPage):
        paginator.page(3)
    assert [item for page in paginator for item in page] == items
