# Issue: a signed literal whose value becomes negative gets a doubled sign.
import pytest
import tomlkit


@pytest.mark.parametrize("src, delta, expected", [
    ("a = +2", -5, "a = -3"),
    ("a = -1", -1, "a = -2"),
    ("a = +0", -7, "a = -7"),
])
def test_signed_int_subtraction_rendering(src, delta, expected):
    doc = tomlkit.parse(src)
    doc["a"] += delta
    assert doc.as_string() == expected
