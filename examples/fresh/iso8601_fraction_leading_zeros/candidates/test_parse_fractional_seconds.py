import pytest

import iso8601


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2013-10-15T18:30:00Z", 0),
        ("2013-10-15T18:30:00.5Z", 500000),
        ("2013-10-15T18:30:00.123Z", 123000),
        ("2013-10-15T18:30:00.520701+00:00", 520701),
        ("2013-10-15T18:30:00.000123Z", 123),
        ("2013-10-15T18:30:00.010Z", 10000),
        ("2013-10-15T18:30:00.9999995Z", 999999),
        ("2013-10-15T18:30:00.0000005Z", 1),  # rounds half up
    ],
)
def test_fraction_to_microseconds(text, expected):
    assert iso8601.parse_date(text).microsecond == expected
