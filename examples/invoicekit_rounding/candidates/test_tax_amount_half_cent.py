"""The VAT of a net amount is rounded half up to the cent (issue: 0.125 -> 0.12)."""
from decimal import Decimal

from invoicekit import REDUCED, gross_from_net, tax_amount


def test_tax_of_half_a_cent_rounds_up():
    assert tax_amount(Decimal("2.50"), Decimal("0.05")) == Decimal("0.13")
    assert tax_amount(Decimal("3.50"), REDUCED) == Decimal("0.25")


def test_tax_that_already_rounds_up_is_unchanged():
    assert tax_amount(Decimal("4.50"), Decimal("0.03")) == Decimal("0.14")


def test_gross_includes_the_rounded_up_tax():
    assert gross_from_net(Decimal("2.50"), Decimal("0.05")) == Decimal("2.63")
