import humanize


def test_single_item():
    assert humanize.natural_list(["apples"]) == "apples"


def test_two_items():
    assert humanize.natural_list(["apples", "pears"]) == "apples and pears"


def test_several_items_and_numbers():
    assert humanize.natural_list(["a", "b", "c", "d"]) == "a, b, c and d"
    assert humanize.natural_list([1, "two", 3.5]) == "1, two and 3.5"


def test_empty_string_item():
    assert humanize.natural_list([""]) == ""
