# metric() for small capacitances
from humanize import metric


def test_metric_micro_prefix():
    # micro is written as "u"
    assert metric(1e-6, "F") == "1.00 uF"


def test_metric_milli_prefix():
    assert metric(0.0047, "F") == "4.70 mF"
