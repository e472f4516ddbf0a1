import pytest

import iso8601


@pytest.mark.parametrize(
    "fraction, expected_us",
    [
        ("05", 50000),
        ("007", 7000),
        ("0001", 100),
        ("000042", 42),
    ],
)
def test_leading_zeros_in_fraction_are_significant(fraction, expected_us):
    parsed = iso8601.parse_date("2013-10-15T18:30:12.%sZ" % fraction)
    assert parsed.second == 12
    assert parsed.microsecond == expected_us
