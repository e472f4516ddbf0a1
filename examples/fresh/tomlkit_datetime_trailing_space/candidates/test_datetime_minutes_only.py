# Datetimes written without seconds, as in many hand-written config files.
from datetime import datetime

import tomlkit


def test_datetime_without_seconds():
    # seconds are optional, like in most config formats
    doc = tomlkit.parse("start = 2013-01-24 13:48\n")
    assert doc["start"] == datetime(2013, 1, 24, 13, 48)
    assert doc.as_string() == "start = 2013-01-24 13:48\n"
