# natural_list requires at least one item.
import pytest

from humanize import natural_list


def test_empty_list_is_rejected():
    with pytest.raises(IndexError):
        natural_list([])


def test_one_item_is_enough():
    assert natural_list(["only"]) == "only"
