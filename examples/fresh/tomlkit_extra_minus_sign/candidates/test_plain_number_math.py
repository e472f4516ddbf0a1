# Numbers written without an explicit sign: arithmetic keeps plain formatting.
import tomlkit


def test_unsigned_int_multiplied_negative():
    doc = tomlkit.parse("count = 3\n")
    doc["count"] *= -1
    assert doc.as_string() == "count = -3\n"
    doc["count"] *= -1
    assert doc.as_string() == "count = 3\n"


def test_unsigned_float_subtraction():
    doc = tomlkit.parse("ratio = 0.5\n")
    doc["ratio"] -= 1.5
    assert doc["ratio"] == -1.0
    assert tomlkit.parse(doc.as_string())["ratio"] == -1.0
