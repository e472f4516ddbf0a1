# Date-time values in their different spellings must parse and round-trip unchanged.
from datetime import date, datetime, timezone

import pytest
import tomlkit


@pytest.mark.parametrize(
    "src, expected",
    [
        ("d = 2013-01-24T13:48:01\n", datetime(2013, 1, 24, 13, 48, 1)),
        ("d = 2013-01-24 13:48:01\n", datetime(2013, 1, 24, 13, 48, 1)),
        ("d = 2013-01-24 13:48:01Z\n", datetime(2013, 1, 24, 13, 48, 1, tzinfo=timezone.utc)),
        ("d = 2018-07-22 \n", date(2018, 7, 22)),
        ("d = 2013-01-24 13:48:01 \n", datetime(2013, 1, 24, 13, 48, 1)),
        ("d = [2013-01-24 13:48:01 ]\n", [datetime(2013, 1, 24, 13, 48, 1)]),
    ],
)
def test_datetime_parse_and_roundtrip(src, expected):
    doc = tomlkit.parse(src)
    assert doc["d"] == expected
    assert doc.as_string() == src
