import io

from dotenv import dotenv_values


def test_single_space_value():
    assert dotenv_values(stream=io.StringIO("A=1 2"))["A"] == "1 2"


def test_quoted_values_with_double_spaces():
    values = dotenv_values(stream=io.StringIO("A='1  2'\nB=\"x  y\"\n"))
    assert values["A"] == "1  2"
    assert values["B"] == "x  y"


def test_value_followed_by_comment():
    assert dotenv_values(stream=io.StringIO("A=b  # c"))["A"] == "b"
