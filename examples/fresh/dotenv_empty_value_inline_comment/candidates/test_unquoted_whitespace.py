# Whitespace around unquoted values.
import io

from dotenv import dotenv_values


def test_unquoted_value_keeps_surrounding_spaces():
    values = dotenv_values(stream=io.StringIO("KEY=  spaced value  \n"))
    assert "KEY" in values
    assert values["KEY"] == "  spaced value  "
