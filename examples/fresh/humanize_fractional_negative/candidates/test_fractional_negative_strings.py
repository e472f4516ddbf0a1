import pytest

from humanize import fractional


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("-1.75", "-1 3/4"),
        ("-2.5", "-2 1/2"),
        (-4 / 3, "-1 1/3"),
    ],
)
def test_negative_mixed_numbers_have_single_sign(raw, expected):
    result = fractional(raw)
    assert result == expected, f"fractional({raw!r}) returned {result!r}"
