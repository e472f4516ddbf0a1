# Numbered fields should behave like str.format's numbering.
import parse


def test_numbered_fields_parse_values():
    assert parse.parse("{0:d}-{1:d}", "3-4").fixed == (3, 4)
    assert parse.parse("{0:f}", "1.5")[0] == 1.5


def test_numbered_fields_follow_their_index():
    # "{1:d} {0:d}".format(2, 1) == "1 2", so parsing "1 2" gives back (2, 1)
    result = parse.parse("{1:d} {0:d}", "1 2")
    assert result.fixed == (2, 1)


def test_numbered_field_search():
    result = parse.search("age: {0:d}", "name: x age: 42")
    assert result[0] == 42
