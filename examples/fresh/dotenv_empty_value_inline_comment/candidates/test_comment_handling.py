# Inline comment handling in unquoted values.
import io

import pytest

from dotenv import dotenv_values


@pytest.mark.parametrize(
    "line, expected",
    [
        ("KEY=hello # comment", "hello"),
        ("KEY=  # comment", ""),
        ("KEY=\t# comment", ""),
        ("KEY=", ""),
        ("KEY=a#b", "a#b"),
        ("KEY=#novalue", ""),
    ],
)
def test_inline_comments(line, expected):
    assert dotenv_values(stream=io.StringIO(line))["KEY"] == expected
