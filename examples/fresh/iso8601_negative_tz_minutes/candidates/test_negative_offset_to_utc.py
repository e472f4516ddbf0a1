import datetime

import iso8601


def test_converting_negative_offset_to_utc():
    parsed = iso8601.parse_date("2013-10-15T15:00-03:30")
    as_utc = parsed.astimezone(datetime.timezone.utc)
    # 15:00 at UTC-03:30 is 18:30 UTC
    assert as_utc == datetime.datetime(2013, 10, 15, 18, 30, tzinfo=datetime.timezone.utc)
    assert (as_utc.hour, as_utc.minute) == (18, 30)
