# Sign handling for number items built through the API.
import tomlkit
from tomlkit.items import SignedFloat


def test_signed_float_item_negation():
    value = SignedFloat(-2.0)
    assert (value * -1).as_string() == "+2.0"


def test_plain_item_negation():
    value = tomlkit.item(2.0)
    assert (value * -1).as_string() == "-2.0"
