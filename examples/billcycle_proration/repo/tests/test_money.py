from decimal import Decimal

import pytest

from billcycle import format_money, round_money, to_decimal


def test_to_decimal_avoids_float_artefacts():
    assert to_decimal(0.1) == Decimal("0.1")
    assert to_decimal("19.99") == Decimal("19.99")
    with pytest.raises(ValueError):
        to_decimal("ten")


def test_round_money_half_up():
    assert round_money("0.125") == Decimal("0.13")
    assert round_money("2.675") == Decimal("2.68")
    assert round_money(3) == Decimal("3.00")


def test_format_money():
    assert format_money("1234.5") == "$1,234.50"
    assert format_money("-3") == "-$3.00"
