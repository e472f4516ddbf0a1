# Regression: microseconds with leading zeros are parsed 1000x too large.
import datetime

import iso8601


def test_parse_microseconds_with_leading_zeros():
    parsed = iso8601.parse_date("1997-08-29T06:14:00.000123Z")
    assert parsed.microsecond == 123
    assert parsed.isoformat() == "1997-08-29T06:14:00.000123+00:00"
    assert parsed.utcoffset() == datetime.timedelta(0)
