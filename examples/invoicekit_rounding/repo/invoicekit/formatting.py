"""Human-readable amounts and plain-text invoices."""

from __future__ import annotations

from decimal import Decimal

from .invoice import Invoice
from .money import AmountLike, quantize, to_decimal

SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥", "CHF": "CHF "}
#: Currencies without minor units are shown without decimals.
PLACES = {"JPY": 0}


def format_amount(amount: AmountLike, currency: str = "EUR") -> str:
    """Format ``amount`` with its currency symbol and thousands separators.

    >>> format_amount(Decimal("-1234.5"), "EUR")
    '-€1,234.50'
    """
    currency = currency.upper()
    places = PLACES.get(currency, 2)
    value = quantize(to_decimal(amount), places)
    sign = "-" if value < 0 else ""
    symbol = SYMBOLS.get(currency, currency + " ")
    return f"{sign}{symbol}{abs(value):,.{places}f}"


def format_invoice(invoice: Invoice) -> str:
    """A plain-text rendering of ``invoice``: one row per line, then the totals."""
    cur = invoice.currency
    rows = [f"Invoice {invoice.number}"]
    for line in invoice.lines:
        qty = line.quantity.normalize()
        rows.append(f"  {line.description:<24} {qty:>6f} x {format_amount(line.unit_price, cur):>12}"
                    f" {format_amount(line.net, cur):>12}")
    rows.append(f"  {'Subtotal':<47} {format_amount(invoice.subtotal, cur):>12}")
    for rate, tax in invoice.tax_breakdown().items():
        label = f"VAT {(rate * 100).normalize():f}%"
        rows.append(f"  {label:<47} {format_amount(tax, cur):>12}")
    rows.append(f"  {'Total':<47} {format_amount(invoice.total, cur):>12}")
    return "\n".join(rows)


def parse_amount(text: str) -> Decimal:
    """Read an amount as ``format_amount`` writes it: ``"-€1,234.50"`` -> ``Decimal("-1234.50")``."""
    cleaned = text.strip()
    negative = cleaned.startswith("-")
    cleaned = cleaned.lstrip("-").strip()
    for symbol in sorted(SYMBOLS.values(), key=len, reverse=True):
        if cleaned.startswith(symbol.strip()):
            cleaned = cleaned[len(symbol.strip()):].strip()
            break
    value = to_decimal(cleaned.replace(",", ""))
    return -value if negative else value
