"""Invoices made of line items, with per-rate VAT totals."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Dict, List

from .errors import InvalidAmount
from .money import AmountLike, quantize, to_decimal
from .tax import tax_amount


@dataclass
class LineItem:
    """One line of an invoice: ``quantity`` x ``unit_price``, less a discount.

    ``discount`` and ``tax_rate`` are fractions (``Decimal("0.10")`` is 10 %).
    The net amount of the line is rounded to the cent before tax is computed.
    """

    description: str
    quantity: AmountLike = 1
    unit_price: AmountLike = 0
    tax_rate: AmountLike = 0
    discount: AmountLike = 0

    def __post_init__(self) -> None:
        self.quantity = to_decimal(self.quantity)
        self.unit_price = to_decimal(self.unit_price)
        self.tax_rate = to_decimal(self.tax_rate)
        self.discount = to_decimal(self.discount)
        if self.quantity < 0:
            raise InvalidAmount(f"negative quantity on {self.description!r}")
        if not 0 <= self.discount <= 1:
            raise InvalidAmount(f"discount must be in [0, 1]: {self.discount}")

    @property
    def net(self) -> Decimal:
        return quantize(self.quantity * self.unit_price * (1 - self.discount))

    @property
    def tax(self) -> Decimal:
        return tax_amount(self.net, self.tax_rate)

    @property
    def gross(self) -> Decimal:
        return self.net + self.tax


@dataclass
class Invoice:
    """An invoice in one currency. Totals are sums of the rounded lines."""

    number: str
    currency: str = "EUR"
    lines: List[LineItem] = field(default_factory=list)

    def add_line(self, line: LineItem) -> LineItem:
        self.lines.append(line)
        return line

    @property
    def subtotal(self) -> Decimal:
        return sum((line.net for line in self.lines), Decimal("0.00"))

    @property
    def tax_total(self) -> Decimal:
        return sum((line.tax for line in self.lines), Decimal("0.00"))

    @property
    def total(self) -> Decimal:
        return self.subtotal + self.tax_total

    def tax_breakdown(self) -> Dict[Decimal, Decimal]:
        """Tax per rate, in the order the rates first appear (rate -> tax)."""
        breakdown: Dict[Decimal, Decimal] = OrderedDict()
        for line in self.lines:
            breakdown.setdefault(line.tax_rate, Decimal("0.00"))
            breakdown[line.tax_rate] += line.tax
        return dict(breakdown)

    def scaled(self, factor: AmountLike) -> "Invoice":
        """A copy with every unit price multiplied by ``factor`` (e.g. a credit note at -1)."""
        factor = to_decimal(factor)
        lines = [
            LineItem(
                line.description,
                line.quantity,
                quantize(line.unit_price * factor, 4),
                line.tax_rate,
                line.discount,
            )
            for line in self.lines
        ]
        return Invoice(self.number, self.currency, lines)
