# Issue: natural_list([]) should return "" instead of raising IndexError.
from humanize.list import natural_list


def test_empty():
    assert natural_list([]) == ""


def test_three():
    assert natural_list(["a", "b", "c"]) == "a, b and c"
