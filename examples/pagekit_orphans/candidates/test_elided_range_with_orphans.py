# Regression test for the orphan pagination issue: make sure the page
# navigation window still renders correctly for a paginator using orphans.
from pagekit import ELLIPSIS, Paginator, elided_page_range


def test_elided_range_uses_paginator_page_count():
    # 22 items, 10 per page, 3 orphans -> 2 pages (the 2 leftovers are merged)
    paginator = Paginator(list(range(22)), per_page=10, orphans=3)
    assert list(elided_page_range(paginator, 1)) == [1, 2]


def test_elided_range_large_paginator():
    paginator = Paginator(list(range(200)), per_page=10)
    window = list(elided_page_range(paginator, 10, on_each_side=1, on_ends=1))
    assert window == [1, ELLIPSIS, 9, 10, 11, ELLIPSIS, 20]
