# Arithmetic on an Integer item returns an item that can be written back
# into the document without losing its TOML trivia.
import tomlkit
from tomlkit.items import Integer


def test_division_returns_integer_item():
    doc = tomlkit.parse("workers = 8  # per node\n")
    half = doc["workers"] / 2
    assert isinstance(half, Integer)
    assert half == 4
    doc["workers"] = half
    assert doc.as_string().endswith("# per node\n")
