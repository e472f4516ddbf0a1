# metric() around the power-of-1000 boundaries
import pytest

import humanize


@pytest.mark.parametrize(
    "args, expected",
    [
        ((999, "V"), "999 V"),
        ((1000, "V"), "1.00 kV"),
        ((999.9, "V"), "1.00 kV"),
        ((1234.56,), "1.23 k"),
        ((9999,), "10.0 k"),
        ((0.001, "A"), "1.00 mA"),
    ],
)
def test_metric_boundaries(args, expected):
    assert humanize.metric(*args) == expected
