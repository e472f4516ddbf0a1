# `A=1  2` should give a binding instead of a parse error.
import io

from dotenv import parse_stream


def test_two_spaces_binding():
    (binding,) = parse_stream(io.StringIO("A=1  2"))
    assert binding.key == "A"
    assert binding.value == "1  2"
