from datetime import datetime

import tomlkit


def test_datetime_with_space_inside_array():
    doc = tomlkit.parse("d = [2013-01-24 13:48:01 , 2013-01-25 13:56:01]\n")
    assert doc["d"] == [
        datetime(2013, 1, 24, 13, 48, 1),
        datetime(2013, 1, 25, 13, 56, 1),
    ]


def test_datetime_with_space_inside_inline_table():
    doc = tomlkit.parse("d = { a = 2013-01-24 13:48:01 }\n")
    assert doc["d"]["a"] == datetime(2013, 1, 24, 13, 48, 1)
    assert tomlkit.parse(tomlkit.dumps(doc)) == doc
