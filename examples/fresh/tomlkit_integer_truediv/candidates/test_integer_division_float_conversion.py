# float() of a quotient of two parsed integers.
import tomlkit


def test_float_of_division_result():
    doc = tomlkit.parse("total = 7\ncount = 2\n")
    ratio = doc["total"] / doc["count"]
    # converting the quotient to a plain float must work
    assert float(ratio) == 3.5
    assert round(ratio, 1) == 3.5
