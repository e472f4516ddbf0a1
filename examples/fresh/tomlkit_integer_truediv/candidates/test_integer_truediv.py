# Reproduction of "dividing a tomlkit.Integer by an int does integer division".
from tomlkit.items import Integer, item


def test_true_division_of_integer_item():
    i = item(1)
    assert type(i) is Integer
    v = i / 2
    assert v == 0.5
    assert str(v) == "0.5"
