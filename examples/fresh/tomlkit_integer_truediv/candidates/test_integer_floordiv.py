# Floor division and modulo keep Integer items integral.
import tomlkit
from tomlkit.items import Integer


def test_floor_division_and_modulo():
    doc = tomlkit.parse("size = 17\n")
    q = doc["size"] // 5
    r = doc["size"] % 5
    assert isinstance(q, Integer) and isinstance(r, Integer)
    assert (q, r) == (3, 2)
    assert q.as_string() == "3"
    doc["size"] //= 2
    assert doc.as_string() == "size = 8\n"
