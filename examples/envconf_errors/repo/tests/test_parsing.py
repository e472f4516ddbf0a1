import pytest

from envconf import parse_bool, parse_dotenv, parse_duration, parse_list


@pytest.mark.parametrize("text", ["1", "true", "YES", " on ", "y"])
def test_parse_bool_true(text):
    assert parse_bool(text) is True


@pytest.mark.parametrize("text", ["0", "False", "no", "off", ""])
def test_parse_bool_false(text):
    assert parse_bool(text) is False


def test_parse_bool_rejects_garbage():
    with pytest.raises(ValueError):
        parse_bool("maybe")


def test_parse_list():
    assert parse_list(" a, b ,,c ") == ["a", "b", "c"]
    assert parse_list("a;b", separator=";") == ["a", "b"]


def test_parse_duration():
    assert parse_duration("90") == 90
    assert parse_duration("1h30m") == 5400
    assert parse_duration("250ms") == 0.25
    with pytest.raises(ValueError):
        parse_duration("10 parsecs")


def test_parse_dotenv():
    text = [
        "# comment",
        "export A=1",
        'B="two words"',
        "C=three # trailing comment",
        "",
        "A=4",
    ]
    assert parse_dotenv(text) == {"A": "4", "B": "two words", "C": "three"}
    with pytest.raises(ValueError, match="line 1"):
        parse_dotenv(["not a setting"])
