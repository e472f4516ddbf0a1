import pytest

from wcwidth import center

TEXTS = ["", "a", "ab", "abc", "abcd", "hello"]


@pytest.mark.parametrize("text", TEXTS)
def test_center_agrees_with_str_center(text):
    for dest in range(0, 12):
        for fill in (" ", "-"):
            expected = text.center(dest, fill)
            assert center(text, dest, fill) == expected, (text, dest, fill)
