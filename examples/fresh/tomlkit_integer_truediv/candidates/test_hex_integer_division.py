# Halving a bit mask written in hex notation.
import tomlkit


def test_halving_hex_value_keeps_hex_notation():
    doc = tomlkit.parse("mask = 0x10\n")
    assert doc["mask"] == 16
    doc["mask"] /= 2
    assert doc["mask"] == 8
    assert doc.as_string() == "mask = 0x8\n"
