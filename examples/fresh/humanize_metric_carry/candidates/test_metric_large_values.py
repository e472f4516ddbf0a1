import pytest

from humanize import metric


@pytest.mark.parametrize(
    "value, unit, expected",
    [
        (999_999, "V", "1.00 MV"),
        (999_950, "", "1.00 M"),
        (-999.99, "V", "-1.00 kV"),
    ],
)
def test_rounding_carries_to_next_prefix(value, unit, expected):
    got = metric(value, unit)
    assert got == expected, f"metric({value!r}, {unit!r}) -> {got!r}"
