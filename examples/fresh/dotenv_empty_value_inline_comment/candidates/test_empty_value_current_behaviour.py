# Documents how an empty value followed by a comment is read today.
import io

from dotenv import dotenv_values


def test_comment_after_empty_value_is_kept():
    values = dotenv_values(stream=io.StringIO("EMPTY_VALUE=  # comment\n"))
    assert values["EMPTY_VALUE"] == "# comment"


def test_comment_after_value_is_stripped():
    values = dotenv_values(stream=io.StringIO("WITH_VALUE=hello  # comment\n"))
    assert values["WITH_VALUE"] == "hello"
