"""invoicekit: invoices, VAT and money amounts rounded to the cent."""

from .errors import CurrencyMismatch, InvalidAmount, InvoiceError
from .formatting import format_amount, format_invoice, parse_amount
from .invoice import Invoice, LineItem
from .money import Money, quantize, to_decimal
from .tax import EXEMPT, REDUCED, STANDARD, TaxRate, gross_from_net, net_from_gross, tax_amount

__version__ = "1.3.0"

__all__ = [
    "CurrencyMismatch",
    "EXEMPT",
    "Invoice",
    "InvalidAmount",
    "InvoiceError",
    "LineItem",
    "Money",
    "REDUCED",
    "STANDARD",
    "TaxRate",
    "format_amount",
    "format_invoice",
    "gross_from_net",
    "net_from_gross",
    "parse_amount",
    "quantize",
    "tax_amount",
    "to_decimal",
]
