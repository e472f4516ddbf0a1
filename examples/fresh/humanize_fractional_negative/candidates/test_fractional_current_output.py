# Document how fractional() renders negative mixed numbers.
from humanize import fractional


def test_negative_mixed_number_output():
    # the sign is carried by both the whole part and the fraction
    assert fractional(-1.3) == "-1 -3/10"
    assert fractional(-2.5) == "-2 -1/2"


def test_negative_proper_fraction_output():
    assert fractional(-0.5) == "-1/2"
