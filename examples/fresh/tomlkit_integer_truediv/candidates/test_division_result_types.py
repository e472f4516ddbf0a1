# Division results should be proper TOML number items.
import tomlkit
from tomlkit.items import Integer, Real


def test_true_division_returns_real_item():
    doc = tomlkit.parse("n = 9\n")
    result = doc["n"] / 2
    assert isinstance(result, Real)
    assert result == 4.5


def test_integer_stays_integer():
    doc = tomlkit.parse("n = 9\n")
    assert isinstance(doc["n"], Integer)
