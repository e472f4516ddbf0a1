# natural_list: joining items into an English phrase
import pytest

from humanize import natural_list


@pytest.mark.parametrize(
    "items, expected",
    [
        ([], ""),
        (["one"], "one"),
        (["one", "two"], "one and two"),
        (["one", "two", "three"], "one, two, and three"),
        ([1, 2, 3], "1, 2, and 3"),
    ],
)
def test_natural_list(items, expected):
    assert natural_list(items) == expected
