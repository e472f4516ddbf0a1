import pytest

import humanize


@pytest.mark.parametrize(
    "args, expected",
    [
        ((1500, "m"), "1.50 km"),
        ((-1500, "m"), "-1.50 km"),
        ((220e3, "V"), "220 kV"),
        ((0.001, "F"), "1.00 mF"),
        ((1e30, "W"), "1.00 QW"),
        ((999.4, "V"), "999 V"),
        ((12345, "", 6), "12.3450 k"),
    ],
)
def test_metric_prefix_selection(args, expected):
    assert humanize.metric(*args) == expected
