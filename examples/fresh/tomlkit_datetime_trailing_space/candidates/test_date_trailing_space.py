# Dates and T-separated datetimes followed by whitespace.
from datetime import date, datetime

import tomlkit


def test_date_followed_by_space():
    doc = tomlkit.parse("day = 2018-07-22 \n")
    assert doc["day"] == date(2018, 7, 22)
    assert doc.as_string() == "day = 2018-07-22 \n"


def test_t_separated_datetime_followed_by_space():
    doc = tomlkit.parse("at = 2013-01-24T13:48:01 \nn = 1\n")
    assert doc["at"] == datetime(2013, 1, 24, 13, 48, 1)
    assert doc["n"] == 1
