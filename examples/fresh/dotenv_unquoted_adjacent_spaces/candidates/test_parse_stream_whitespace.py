import io

import pytest

from dotenv.parser import parse_stream


@pytest.mark.parametrize(
    "text, value",
    [("A=1  2", "1  2"), ("A=1\t\t2", "1\t\t2"), ("A=x   y # note", "x   y")],
)
def test_unquoted_value_with_repeated_whitespace(text, value):
    bindings = list(parse_stream(io.StringIO(text)))
    assert len(bindings) == 1
    assert not bindings[0].error
    assert (bindings[0].key, bindings[0].value) == ("A", value)
