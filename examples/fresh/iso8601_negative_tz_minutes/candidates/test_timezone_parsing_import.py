import datetime

from iso8601 import FixedOffset, parse_date


def test_negative_offset_equals_fixed_offset():
    parsed = parse_date("2013-10-15T15:00-03:30")
    tz = FixedOffset(-3, -30, "-03:30")
    assert parsed.tzinfo == tz
    assert parsed == datetime.datetime(2013, 10, 15, 15, 0, tzinfo=tz)
