# The workaround from the issue: quoted empty values with a comment.
import io

from dotenv import dotenv_values


def test_quoted_empty_value_with_comment():
    values = dotenv_values(stream=io.StringIO('KEY=""  # comment\nOTHER=\'\' # c\n'))
    assert values == {"KEY": "", "OTHER": ""}


def test_value_with_comment_and_bare_empty():
    values = dotenv_values(stream=io.StringIO("WITH_VALUE=hello  # comment\nJUST_EMPTY=\n"))
    assert values["WITH_VALUE"] == "hello"
    assert values["JUST_EMPTY"] == ""
