from decimal import Decimal

import parse


def test_zero_precision_float():
    result = parse.parse("{:.0f}", "20")
    assert result is not None
    assert result[0] == 20.0


def test_zero_precision_decimal():
    assert parse.parse("{:.0F}", "20")[0] == Decimal("20")


def test_zero_precision_named_and_signed():
    assert parse.parse("{x:.0f}", "7").named == {"x": 7.0}
    assert parse.parse("{:.0f}", "-3").fixed == (-3.0,)


def test_zero_precision_search():
    assert parse.search("temp={:.0f}C", "now temp=21C ok")[0] == 21.0
