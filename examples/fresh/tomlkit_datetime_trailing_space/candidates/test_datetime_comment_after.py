# A space-separated datetime followed by a comment or trailing blanks.
from datetime import datetime, timedelta, timezone

import pytest
import tomlkit


@pytest.mark.parametrize("line, expected", [
    ("ts = 2013-01-24 13:48:01 # created\n", datetime(2013, 1, 24, 13, 48, 1)),
    ("ts = 2013-01-24 13:48:01Z   \n", datetime(2013, 1, 24, 13, 48, 1, tzinfo=timezone.utc)),
    ("ts = 2013-01-24 13:48:01+05:30 \n",
     datetime(2013, 1, 24, 13, 48, 1, tzinfo=timezone(timedelta(hours=5, minutes=30)))),
])
def test_value_and_layout_preserved(line, expected):
    doc = tomlkit.parse(line)
    assert doc["ts"] == expected
    assert doc.as_string() == line
