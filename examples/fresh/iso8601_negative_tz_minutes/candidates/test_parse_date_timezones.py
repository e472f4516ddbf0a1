import datetime

import pytest

import iso8601

H = datetime.timedelta(hours=1)
M = datetime.timedelta(minutes=1)


@pytest.mark.parametrize(
    "text, offset",
    [
        ("2013-10-15T11:30Z", datetime.timedelta(0)),
        ("2013-10-15T11:30+05:30", 5 * H + 30 * M),
        ("2013-10-15T11:30-07:00", -7 * H),
        ("2013-10-15T11:30-0330", -(3 * H + 30 * M)),
        ("2013-10-15T11:30-03:30", -(3 * H + 30 * M)),
        ("2013-10-15T11:30", None),  # no designator -> naive datetime
    ],
)
def test_parse_date_offsets(text, offset):
    assert iso8601.parse_date(text).utcoffset() == offset
