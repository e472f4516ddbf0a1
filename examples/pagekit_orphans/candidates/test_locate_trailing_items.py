# Issue: trailing items are not on any page when leftover == orphans.
# locate() walks the real pages, so it exposes the lost items directly.
import pytest

from pagekit import Paginator


@pytest.mark.parametrize("index", [20, 21, 22, -1])
def test_every_item_can_be_located(index):
    paginator = Paginator(list(range(23)), per_page=10, orphans=3)
    # Items 20..22 are the orphans; they belong to the last page (page 2).
    assert paginator.locate(index) == 2


def test_locate_first_items():
    paginator = Paginator(list(range(23)), per_page=10, orphans=3)
    assert paginator.locate(0) == 1
    assert paginator.locate(9) == 1
    assert paginator.locate(10) == 2
