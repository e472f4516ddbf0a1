from decimal import Decimal

import pytest

from invoicekit import CurrencyMismatch, InvalidAmount, Money, quantize, to_decimal


def test_to_decimal_reads_floats_by_repr():
    assert to_decimal(0.1) == Decimal("0.1")
    assert to_decimal("12.50") == Decimal("12.50")
    assert to_decimal(3) == Decimal(3)


@pytest.mark.parametrize("bad", ["abc", "NaN", "Infinity", True, None])
def test_to_decimal_rejects_non_amounts(bad):
    with pytest.raises(InvalidAmount):
        to_decimal(bad)


def test_quantize_to_cents_and_other_places():
    assert quantize(Decimal("2.344")) == Decimal("2.34")
    assert quantize(Decimal("2.346")) == Decimal("2.35")
    assert quantize(Decimal("7")) == Decimal("7.00")
    assert quantize(Decimal("1.23456"), 4) == Decimal("1.2346")
    assert quantize(Decimal("19.6"), 0) == Decimal("20")


def test_money_arithmetic_and_currency_checks():
    a = Money("10.10", "eur")
    b = Money(Decimal("0.456"), "EUR")
    assert a.currency == "EUR"
    assert (a + b).amount == Decimal("10.56")
    assert (a - b).amount == Decimal("9.64")
    assert (-a).amount == Decimal("-10.10")
    with pytest.raises(CurrencyMismatch):
        a + Money("1", "USD")


def test_money_times_and_percent():
    assert Money("19.99").times(3).amount == Decimal("59.97")
    assert Money("80.00").percent(19).amount == Decimal("15.20")


def test_money_allocate_keeps_every_cent():
    shares = Money("100.00").allocate([1, 1, 1])
    assert [s.amount for s in shares] == [Decimal("33.34"), Decimal("33.33"), Decimal("33.33")]
    assert sum(s.amount for s in shares) == Decimal("100.00")
    with pytest.raises(ValueError):
        Money("1").allocate([0, 0])
