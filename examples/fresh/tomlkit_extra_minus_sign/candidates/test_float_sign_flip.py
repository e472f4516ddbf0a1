# Reproduction of "Sign change when doing math gives invalid number".
import tomlkit


def test_flipping_sign_twice_gives_back_original():
    d = tomlkit.parse("x=-3.1415")
    d["x"] *= -1
    assert d["x"] == 3.1415
    d["x"] *= -1
    assert d["x"] == -3.1415
    assert tomlkit.dumps(d) == "x=-3.1415"
