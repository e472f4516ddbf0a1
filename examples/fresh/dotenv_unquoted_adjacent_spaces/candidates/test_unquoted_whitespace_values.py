# Whitespace inside unquoted values should be preserved as written.
import io

import pytest

from dotenv import dotenv_values


@pytest.mark.parametrize(
    "line, expected",
    [
        ("A=1 2", "1 2"),
        ("A=1  2", "1  2"),
        ("A=1\t2", "1\t2"),
        ("A=1  2 # comment", "1  2"),
        ("A=1  2  ", "1  2  "),
    ],
)
def test_unquoted_whitespace(line, expected):
    assert dotenv_values(stream=io.StringIO(line))["A"] == expected
