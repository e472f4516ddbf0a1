import parse
from parse.types import float_convert


def test_zero_precision_converter():
    assert float_convert("20", precision=0) == 20.0


def test_zero_precision_parse():
    assert parse.parse("{:.0f}", "20")[0] == 20.0
