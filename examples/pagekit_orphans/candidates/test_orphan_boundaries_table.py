# Table-driven checks of how Paginator splits items, including orphans.
import pytest

from pagekit import Paginator

CASES = [
    # count, per_page, orphans, expected page sizes
    (0, 10, 0, [0]),
    (1, 10, 0, [1]),
    (9, 10, 0, [9]),
    (10, 10, 0, [10]),
    (11, 10, 0, [10, 1]),
    (21, 10, 2, [10, 11]),
    (22, 10, 3, [10, 12]),
    (24, 10, 3, [10, 10, 4]),
    (25, 10, 3, [10, 10, 5]),
    (12, 5, 3, [5, 7]),
    (7, 3, 2, [3, 4]),
    (51, 10, 4, [10, 10, 10, 10, 11]),
]


@pytest.mark.parametrize("count, per_page, orphans, sizes", CASES)
def test_page_sizes(count, per_page, orphans, sizes):
    items = list(range(count))
    paginator = Paginator(items, per_page=per_page, orphans=orphans)
    assert paginator.num_pages == len(sizes)
    assert [len(page) for page in paginator] == sizes
    assert [x for page in paginator for x in page] == items
    last = paginator.page(paginator.num_pages)
    assert last.end_index() == count
