# Reproduction from the issue: metric(999.9, "V") returns '1000 V'.
# Expected: the rounding carries to the next SI prefix.
import humanize


def test_metric_rounds_up_to_kilo():
    # 999.9 V rounded to 3 significant figures is 1.00 kV
    result = humanize.metric(999.9, "V")

    assert result == "1.00 kV"
