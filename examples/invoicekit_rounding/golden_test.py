from decimal import Decimal

import pytest

from invoicekit import Invoice, LineItem, quantize, tax_amount


@pytest.mark.parametrize("amount, expected", [
    ("0.125", "0.13"),
    ("0.135", "0.14"),
    ("0.245", "0.25"),
    ("-0.125", "-0.13"),
    ("0.124", "0.12"),
])
def test_quantize_rounds_half_cents_away_from_zero(amount, expected):
    assert quantize(Decimal(amount)) == Decimal(expected)


def test_invoice_vat_of_half_a_cent_is_rounded_up():
    assert tax_amount(Decimal("3.50"), Decimal("0.07")) == Decimal("0.25")
    invoice = Invoice("2024-0117")
    invoice.add_line(LineItem("Postage", quantity=1, unit_price=Decimal("2.50"),
                              tax_rate=Decimal("0.05")))
    assert invoice.tax_total == Decimal("0.13")
    assert invoice.total == Decimal("2.63")
