# The minus sign of a negative mixed number must appear exactly once.
from humanize import fractional


def test_minus_sign_appears_once():
    for value in (-1.3, -2.5, -10.125):
        text = fractional(value)
        assert text.startswith("-")
        assert text.count("-") == 1, text


def test_mirror_of_positive():
    for value in (1.3, 2.5, 10.125):
        assert fractional(-value) == "-" + fractional(value)
