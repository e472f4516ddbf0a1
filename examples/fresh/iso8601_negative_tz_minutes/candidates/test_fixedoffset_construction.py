import datetime

from iso8601 import iso8601


def test_newfoundland_offset_matches_fixedoffset():
    parsed = iso8601.parse_date("2013-10-15T15:00-03:30")
    # FixedOffset takes the sign on the hours and the minutes as given
    expected_tz = iso8601.FixedOffset(-3, 30, "-03:30")
    assert parsed.tzinfo == expected_tz
    assert parsed == datetime.datetime(2013, 10, 15, 15, 0, 0, 0, expected_tz)
    assert parsed.tzname() == "-03:30"
