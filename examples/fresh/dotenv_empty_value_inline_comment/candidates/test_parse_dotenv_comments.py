# Inline comments after empty values (issue #600).
from dotenv import parse_dotenv


def test_parse_dotenv_empty_value_with_comment():
    assert parse_dotenv("KEY= # comment\n") == {"KEY": ""}


def test_parse_dotenv_value_with_comment():
    assert parse_dotenv("KEY=value # comment\n") == {"KEY": "value"}
