# Typed fields without numbering (the workaround mentioned in the issue).
import parse


def test_anonymous_float_field():
    result = parse.parse(":CURR {:f}", ":CURR 5.13")
    assert result is not None
    assert result[0] == 5.13


def test_named_typed_fields():
    result = parse.parse("{price:f} {qty:d}", "2.50 4")
    assert result["price"] == 2.5
    assert result["qty"] == 4


def test_numbered_untyped_fields():
    result = parse.parse("{0}/{1}", "a/b")
    assert result.fixed == ("a", "b")
