# A ".0f" field should stay lenient and accept values written with a decimal point.
import parse


def test_zero_precision_accepts_trailing_zero():
    result = parse.parse("a {:.0f} b", "a 12.0 b")
    assert result is not None
    assert result[0] == 12.0


def test_zero_precision_fraction():
    assert parse.parse("{:.0f}", "0.5")[0] == 0.5
