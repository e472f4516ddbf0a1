# Check the rounding helper used for currency amounts against the issue.
from decimal import Decimal

from invoicekit.currency import round_half_up


def test_round_half_up_helper():
    assert round_half_up(Decimal("0.125")) == Decimal("0.13")
    assert round_half_up(Decimal("0.135")) == Decimal("0.14")


def test_round_half_up_keeps_exact_cents():
    assert round_half_up(Decimal("2.50")) == Decimal("2.50")
