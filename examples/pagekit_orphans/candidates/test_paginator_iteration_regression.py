"""Iterating over all pages must yield every item exactly once, also when
the number of leftover items is exactly ``orphans`` (see issue)."""
import pytest

from pagekit import Paginator


@pytest.mark.parametrize(
    "count, per_page, orphans",
    [(23, 10, 3), (11, 5, 1), (14, 6, 2)],
)
def test_iteration_yields_all_items(count, per_page, orphans):
    items = [f"item-{i}" for i in range(count)]
    paginator = Paginator(items, per_page=per_page, orphans=orphans)

    seen = [item for page in paginator for item in page]

    assert seen == items, f"missing: {sorted(set(items) - set(seen))}"
