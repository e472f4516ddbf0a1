# Issue: metric() prints '1000 kV' instead of '1.00 MV'.
from humanize import metric
from humanize.number import si_format


def test_si_format_carries():
    assert si_format(999_999, "V") == "1.00 MV"


def test_metric_carries():
    assert metric(999_999, "V") == "1.00 MV"
