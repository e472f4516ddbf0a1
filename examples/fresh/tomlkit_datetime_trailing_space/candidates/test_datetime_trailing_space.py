# Issue: "Parser fails on datetime followed by space"
from datetime import datetime

import tomlkit


def test_space_separated_datetime_with_trailing_space():
    doc = tomlkit.parse("d = 2013-01-24 13:48:01.123456 ")
    value = doc["d"]
    assert isinstance(value, datetime)
    assert value == datetime(2013, 1, 24, 13, 48, 1, 123456)
