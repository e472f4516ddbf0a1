"""Money helpers built on :class:`decimal.Decimal`."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Union

Number = Union[Decimal, int, str, float]

CENT = Decimal("0.01")


def to_decimal(value: Number) -> Decimal:
    """Convert *value* to :class:`~decimal.Decimal` without float artefacts.

    Floats are converted through ``repr`` so that ``0.1`` becomes
    ``Decimal("0.1")`` rather than its binary expansion.
    """
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        value = repr(value)
    try:
        return Decimal(value)
    except (InvalidOperation, TypeError):
        raise ValueError(f"not a monetary amount: {value!r}") from None


def round_money(value: Number) -> Decimal:
    """Round *value* half-up to whole cents."""
    return to_decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def format_money(value: Number, currency: str = "$") -> str:
    """Format *value* for display, e.g. ``-$1,234.50``."""
    amount = round_money(value)
    sign = "-" if amount < 0 else ""
    return f"{sign}{currency}{abs(amount):,.2f}"
