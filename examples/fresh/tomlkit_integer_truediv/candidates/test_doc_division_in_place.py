# In-place division of a document value must store the real quotient.
import tomlkit


def test_in_place_division_updates_document():
    doc = tomlkit.parse("timeout = 45\nretries = 3\n")
    doc["timeout"] /= 2
    assert doc["timeout"] == 22.5
    assert doc.as_string() == "timeout = 22.5\nretries = 3\n"
    assert tomlkit.loads(tomlkit.dumps(doc))["timeout"] == 22.5


def test_reflected_division():
    doc = tomlkit.parse("n = 4\n")
    assert 10 / doc["n"] == 2.5
