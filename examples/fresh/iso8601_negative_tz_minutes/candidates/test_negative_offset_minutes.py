# Regression: negative UTC offsets with a minutes part are off by an hour.
import datetime

import iso8601


def test_negative_half_hour_offset():
    parsed = iso8601.parse_date("1985-04-12T23:20:50.52-05:30")
    expected = -datetime.timedelta(hours=5, minutes=30)
    assert parsed.utcoffset() == expected
