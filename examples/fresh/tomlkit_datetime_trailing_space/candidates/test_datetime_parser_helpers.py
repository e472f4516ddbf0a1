# Low-level check of the datetime parsing used by the TOML parser.
from datetime import datetime

import tomlkit
from tomlkit.parser import parse_datetime


def test_parse_datetime_strips_whitespace():
    assert parse_datetime("2013-01-24 13:48:01 ") == datetime(2013, 1, 24, 13, 48, 1)


def test_document_value():
    doc = tomlkit.parse("d = 2013-01-24 13:48:01 \n")
    assert doc["d"] == datetime(2013, 1, 24, 13, 48, 1)
