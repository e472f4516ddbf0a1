# Reproduce the issue using the high level paginate() helper.
from pagekit.utils import paginate


def test_paginate_keeps_orphan_items():
    items = list(range(1, 24))
    pages = paginate(items, per_page=10, orphans=3)
    # All 23 items must be reachable through the pages
    assert len(pages) == 2
    assert sum(len(p) for p in pages) == 23
    assert pages[-1][-1] == 23


def test_paginate_without_orphans():
    pages = paginate(list(range(1, 24)), per_page=10)
    assert len(pages) == 3
