# fractional() with repeating decimals
from humanize import fractional


def test_fractional_rounded_third():
    # 0.333 is "one third" for a human reader
    assert fractional(0.333) == "1/3"


def test_fractional_exact_third():
    assert fractional(1 / 3) == "1/3"
