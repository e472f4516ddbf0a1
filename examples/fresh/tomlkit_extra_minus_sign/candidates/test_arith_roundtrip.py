# Arithmetic on parsed numbers must keep the document valid TOML.
import pytest
import tomlkit


@pytest.mark.parametrize(
    "src, op, expected",
    [
        ("a = 3", lambda v: v * 2, "a = 6"),
        ("a = 3", lambda v: v - 10, "a = -7"),
        ("a = 2.5", lambda v: v + 1, "a = 3.5"),
        ("a = -1", lambda v: v * -1, "a = 1"),
        ("a = -1.5", lambda v: v * -1, "a = 1.5"),
        ("a = +4", lambda v: v - 1, "a = +3"),
    ],
)
def test_arithmetic_result_rendering(src, op, expected):
    doc = tomlkit.parse(src)
    doc["a"] = op(doc["a"])
    assert doc.as_string() == expected
    assert tomlkit.parse(doc.as_string())["a"] == doc["a"]
