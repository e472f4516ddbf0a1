# The mantissa printed by metric() should always stay below 1000.
import re

from humanize import metric


def test_mantissa_below_one_thousand():
    for value in (999.9, 999.99, 999_999, 0.0009999, 999_999_999):
        text = metric(value, "Hz")
        mantissa = re.match(r"-?[\d.]+", text).group(0)
        assert float(mantissa) < 1000, text
