# Broad checks of humanize.fractional, including the negative mixed numbers from the issue.
import pytest

from humanize import fractional


@pytest.mark.parametrize(
    "value, expected",
    [
        (0.3, "3/10"),
        (1.3, "1 3/10"),
        (2.5, "2 1/2"),
        (1 / 3, "1/3"),
        (4, "4"),
        (-0.5, "-1/2"),
        (-1.3, "-1 3/10"),
        (-2.5, "-2 1/2"),
        (0, "0"),
    ],
)
def test_fractional_values(value, expected):
    assert fractional(value) == expected


def test_fractional_non_numeric_passthrough():
    assert fractional("seven") == "seven"
    assert fractional(None) == "None"
