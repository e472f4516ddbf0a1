import datetime

import pytest

import iso8601


@pytest.mark.parametrize(
    "text, hours, minutes",
    [
        ("2013-10-15T11:30+05:30", 5, 30),
        ("2013-10-15T11:30+0545", 5, 45),
        ("2013-10-15T11:30-07:00", -7, 0),
        ("2013-10-15T11:30-0700", -7, 0),
        ("2013-10-15T11:30-07", -7, 0),
    ],
)
def test_offsets(text, hours, minutes):
    parsed = iso8601.parse_date(text)
    expected = datetime.timedelta(hours=hours, minutes=minutes)
    assert parsed.utcoffset() == expected
    sign = "-" if hours < 0 else "+"
    assert parsed.tzname() == "%s%02d:%02d" % (sign, abs(hours), minutes)
