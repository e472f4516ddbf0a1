# `A=1 2` works but `A=1  2` (two spaces) is reported as unparseable.
import io

from dotenv import dotenv_values


def test_two_adjacent_spaces_in_unquoted_value():
    # same content as the .env file from the docker-compose report
    values = dotenv_values(stream=io.StringIO("A=1  2\n"))
    assert values["A"] == "1  2"
