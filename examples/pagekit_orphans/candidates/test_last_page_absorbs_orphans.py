"""Reproduction for: items disappear from the last page when the number of
leftover items equals ``orphans``."""
from pagekit import Paginator


def test_last_page_contains_orphans_when_leftover_equals_orphans():
    results = list(range(1, 24))  # 23 results
    paginator = Paginator(results, per_page=10, orphans=3)

    assert paginator.num_pages == 2
    last_page = paginator.page(2)

    # The 3 leftover results must be merged into page 2.
    assert list(last_page) == list(range(11, 24))
    assert last_page.start_index() == 11
    assert last_page.end_index() == 23
    assert not last_page.has_next()
