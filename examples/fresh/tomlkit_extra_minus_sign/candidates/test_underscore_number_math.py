# Arithmetic on a number written with digit separators.
import tomlkit


def test_increment_keeps_digit_separators():
    doc = tomlkit.parse("limit = 1_000\n")
    assert doc["limit"] == 1000
    doc["limit"] += 1
    assert doc["limit"] == 1001
    assert doc.as_string() == "limit = 1_001\n"
