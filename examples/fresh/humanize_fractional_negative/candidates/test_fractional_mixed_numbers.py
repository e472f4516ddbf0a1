import pytest

import humanize


@pytest.mark.parametrize(
    "value, expected",
    [
        (1.3, "1 3/10"),
        (2.5, "2 1/2"),
        ("7.25", "7 1/4"),
        (-0.3, "-3/10"),
        (-0.5, "-1/2"),
        (-3, "-3"),
        (0.75, "3/4"),
    ],
)
def test_positive_mixed_and_negative_proper(value, expected):
    assert humanize.fractional(value) == expected
