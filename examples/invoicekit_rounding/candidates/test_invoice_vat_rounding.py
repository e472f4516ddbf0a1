"""Reproduction for: VAT of exactly half a cent is rounded down (0.125 -> 0.12)."""
from decimal import Decimal

from invoicekit import Invoice, LineItem, format_invoice


def test_invoice_vat_half_cent_is_rounded_half_up():
    invoice = Invoice("2024-0117", currency="EUR")
    invoice.add_line(
        LineItem("Postage", quantity=1, unit_price=Decimal("2.50"), tax_rate=Decimal("0.05"))
    )

    assert invoice.subtotal == Decimal("2.50")
    assert invoice.tax_total == Decimal("0.13")
    assert invoice.total == Decimal("2.63")

    text = format_invoice(invoice)
    assert text.splitlines()[-2].endswith("€0.13")
    assert text.splitlines()[-1].endswith("€2.63")
