import datetime

from iso8601 import parse_datetime


def test_microseconds_with_leading_zeros():
    parsed = parse_datetime("1997-08-29T06:14:00.000123Z")
    assert parsed.microsecond == 123
    assert parsed.replace(tzinfo=None) == datetime.datetime(
        1997, 8, 29, 6, 14, 0, 123
    )
