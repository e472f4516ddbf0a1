# A negative literal multiplied by -1 once: the explicit sign style is kept.
import tomlkit


def test_negative_literal_flipped_once_gets_plus_sign():
    doc = tomlkit.parse("a = -1\nb = -1.5\n")
    doc["a"] *= -1
    doc["b"] *= -1
    assert doc["a"] == 1
    assert doc["b"] == 1.5
    assert doc.as_string() == "a = +1\nb = +1.5\n"
    assert tomlkit.parse(doc.as_string()) == {"a": 1, "b": 1.5}
