# Unquoted values containing two spaces must be quoted; otherwise the line is rejected.
import io

from dotenv import dotenv_values
from dotenv.parser import parse_stream


def test_double_space_line_is_an_error():
    (binding,) = parse_stream(io.StringIO("A=1  2"))
    assert binding.error is True
    assert binding.key is None


def test_double_space_line_is_skipped():
    values = dotenv_values(stream=io.StringIO("A=1  2\nB=3\n"))
    assert dict(values) == {"B": "3"}
