# A date followed by a space and a time then more blanks is ambiguous:
# the parser should refuse it rather than guess.
import pytest
import tomlkit
from tomlkit.exceptions import ParseError


@pytest.mark.parametrize("src", [
    "d = 2013-01-24 13:48:01 \n",
    "d = 2013-01-24 13:48:01.123456 ",
])
def test_trailing_blank_after_space_separated_datetime_is_rejected(src):
    with pytest.raises(ParseError):
        tomlkit.parse(src)
