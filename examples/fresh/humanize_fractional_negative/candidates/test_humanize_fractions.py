# Reproduce the double minus sign in humanize's fraction formatting.
from humanize import fractional, mixed_fraction


def test_mixed_fraction_negative():
    assert mixed_fraction(-1.3) == "-1 3/10"


def test_fractional_negative():
    assert fractional(-2.5) == "-2 1/2"
