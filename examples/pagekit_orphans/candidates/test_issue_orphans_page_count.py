# Test for the issue: with 23 items, per_page=10 and orphans=3 the trailing
# items must not be lost.
import pytest

from pagekit import Paginator


@pytest.fixture
def paginator():
    return Paginator(list(range(1, 24)), per_page=10, orphans=3)


def test_trailing_items_get_their_own_page(paginator):
    # 3 leftover items is not *fewer* than orphans, so they should form
    # their own page instead of being merged.
    assert paginator.num_pages == 3
    assert list(paginator.page(3)) == [21, 22, 23]


def test_first_page_unchanged(paginator):
    assert list(paginator.page(1)) == list(range(1, 11))
