from decimal import Decimal

import pytest

from invoicekit import InvalidAmount, Invoice, LineItem, format_amount, format_invoice, parse_amount


def make_invoice():
    invoice = Invoice("2024-0042")
    invoice.add_line(LineItem("Consulting", quantity=3, unit_price=Decimal("120.00"),
                              tax_rate=Decimal("0.19")))
    invoice.add_line(LineItem("Books", quantity=2, unit_price=Decimal("24.95"),
                              tax_rate=Decimal("0.07"), discount=Decimal("0.10")))
    return invoice


def test_line_item_amounts():
    line = LineItem("Books", quantity=2, unit_price=Decimal("24.95"),
                    tax_rate=Decimal("0.07"), discount=Decimal("0.10"))
    assert line.net == Decimal("44.91")
    assert line.tax == Decimal("3.14")
    assert line.gross == Decimal("48.05")


def test_invoice_totals_and_breakdown():
    invoice = make_invoice()
    assert invoice.subtotal == Decimal("404.91")
    assert invoice.tax_total == Decimal("71.54")
    assert invoice.total == Decimal("476.45")
    assert invoice.tax_breakdown() == {Decimal("0.19"): Decimal("68.40"),
                                       Decimal("0.07"): Decimal("3.14")}


def test_credit_note_negates_the_totals():
    credit = make_invoice().scaled(-1)
    assert credit.total == Decimal("-476.45")


def test_line_item_validation():
    with pytest.raises(InvalidAmount):
        LineItem("x", quantity=-1)
    with pytest.raises(InvalidAmount):
        LineItem("x", discount=Decimal("1.5"))


@pytest.mark.parametrize("amount, currency, text", [
    (Decimal("1234.5"), "EUR", "€1,234.50"),
    (Decimal("-0.4"), "USD", "-$0.40"),
    (Decimal("1500"), "JPY", "¥1,500"),
    (Decimal("12"), "SEK", "SEK 12.00"),
])
def test_format_and_parse_amount(amount, currency, text):
    assert format_amount(amount, currency) == text
    if currency != "SEK":
        assert parse_amount(text) == amount


def test_format_invoice_lists_lines_and_totals():
    text = format_invoice(make_invoice())
    assert text.splitlines()[0] == "Invoice 2024-0042"
    assert "VAT 19%" in text and "VAT 7%" in text
    assert text.splitlines()[-1].endswith("€476.45")
