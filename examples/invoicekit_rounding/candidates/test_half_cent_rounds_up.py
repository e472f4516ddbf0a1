"""Regression test for the half-cent rounding issue."""
from decimal import Decimal

from invoicekit import quantize


def test_half_cents_round_up():
    assert str(quantize(Decimal("7"))) == "7.00"
    assert quantize(Decimal("0.125")) == Decimal("0.13")
    assert quantize(Decimal("-0.125")) == Decimal("-0.12")
