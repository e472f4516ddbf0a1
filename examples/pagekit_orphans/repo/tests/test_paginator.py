import pytest

from pagekit import EmptyPage, PageNotAnInteger, Paginator


def make(count, per_page=10, **kwargs):
    return Paginator(list(range(1, count + 1)), per_page, **kwargs)


def test_basic_pages():
    paginator = make(25)
    assert paginator.count == 25
    assert paginator.num_pages == 3
    assert list(paginator.page_range) == [1, 2, 3]
    assert list(paginator.page(1)) == list(range(1, 11))
    assert list(paginator.page(3)) == [21, 22, 23, 24, 25]


def test_start_and_end_index():
    page = make(25).page(2)
    assert (page.start_index(), page.end_index()) == (11, 20)
    assert make(0).page(1).start_index() == 0
    assert make(0).page(1).end_index() == 0


def test_orphans_are_merged_into_previous_page():
    paginator = make(22, orphans=3)
    assert paginator.num_pages == 2
    assert list(paginator.page(2)) == list(range(11, 23))


def test_orphans_do_not_apply_to_large_last_page():
    paginator = make(25, orphans=3)
    assert paginator.num_pages == 3
    assert len(paginator.page(3)) == 5


def test_invalid_numbers():
    paginator = make(25)
    with pytest.raises(PageNotAnInteger):
        paginator.page("abc")
    with pytest.raises(PageNotAnInteger):
        paginator.page(1.5)
    with pytest.raises(EmptyPage):
        paginator.page(0)
    with pytest.raises(EmptyPage):
        paginator.page(4)


def test_empty_list():
    assert make(0).num_pages == 1
    assert list(make(0).page(1)) == []
    with pytest.raises(EmptyPage):
        make(0, allow_empty_first_page=False).page(1)


def test_get_page_is_lenient():
    paginator = make(25)
    assert paginator.get_page("nope").number == 1
    assert paginator.get_page(99).number == 3
    assert paginator.get_page("2").number == 2


def test_navigation():
    paginator = make(25)
    first, middle, last = paginator
    assert not first.has_previous() and first.has_next()
    assert middle.has_other_pages()
    assert middle.next_page_number() == 3
    assert middle.previous_page_number() == 1
    assert not last.has_next()
    with pytest.raises(EmptyPage):
        last.next_page_number()


def test_locate():
    paginator = make(25)
    assert paginator.locate(0) == 1
    assert paginator.locate(10) == 2
    assert paginator.locate(-1) == 3
    with pytest.raises(IndexError):
        paginator.locate(25)


def test_constructor_validation():
    with pytest.raises(ValueError):
        make(10, per_page=0)
    with pytest.raises(ValueError):
        make(10, per_page=5, orphans=5)
