# Pin the current rounding of metric() just below a prefix boundary.
from humanize import metric


def test_small_value_just_below_milli():
    assert metric(0.0009999, "V") == "1000 μV"


def test_exact_boundary():
    assert metric(0.001, "V") == "1.00 mV"
