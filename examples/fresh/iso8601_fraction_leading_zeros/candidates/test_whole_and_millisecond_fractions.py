import datetime

import pytest

import iso8601


@pytest.mark.parametrize(
    "text, micro",
    [
        ("2006-10-20T15:34:56.123Z", 123000),
        ("2006-10-20T15:34:56.5+02:00", 500000),
        ("2010-07-20 15:25:52.520701+00:00", 520701),
        ("2006-10-20T15:34:56Z", 0),
        ("2006-10-20T15:34:56.0Z", 0),
    ],
)
def test_fraction_without_leading_zero(text, micro):
    parsed = iso8601.parse_date(text)
    assert parsed.microsecond == micro
    assert parsed.second in (52, 56)
    assert isinstance(parsed, datetime.datetime)
