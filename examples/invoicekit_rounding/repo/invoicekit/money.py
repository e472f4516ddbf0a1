"""Decimal amounts rounded to the cent, and a small currency-aware Money type."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from typing import Sequence, Union

from .errors import CurrencyMismatch, InvalidAmount

CENT_PLACES = 2

AmountLike = Union[Decimal, int, str, float]


def to_decimal(value: AmountLike) -> Decimal:
    """Read ``value`` as a Decimal.

    Floats go through ``repr`` so that ``0.1`` becomes ``Decimal("0.1")`` and
    not its binary expansion.  Booleans, NaN and infinities are rejected.
    """
    if isinstance(value, bool):
        raise InvalidAmount(f"not an amount: {value!r}")
    if isinstance(value, float):
        value = repr(value)
    try:
        result = Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise InvalidAmount(f"not an amount: {value!r}") from None
    if not result.is_finite():
        raise InvalidAmount(f"not a finite amount: {value!r}")
    return result


def quantize(amount: Decimal, places: int = CENT_PLACES) -> Decimal:
    """Round ``amount`` to ``places`` decimal places.

    Halves are rounded away from zero, as on paper invoices (ROUND_HALF_UP):
    ``quantize(Decimal("0.125")) == Decimal("0.13")`` and
    ``quantize(Decimal("-0.125")) == Decimal("-0.13")``.
    """
    exponent = Decimal(1).scaleb(-places)
    return amount.quantize(exponent)


@dataclass(frozen=True)
class Money:
    """An amount of one currency, always held rounded to the cent."""

    amount: Decimal
    currency: str = "EUR"

    def __post_init__(self) -> None:
        object.__setattr__(self, "amount", quantize(to_decimal(self.amount)))
        object.__setattr__(self, "currency", self.currency.upper())

    @classmethod
    def zero(cls, currency: str = "EUR") -> "Money":
        return cls(Decimal(0), currency)

    def _check(self, other: "Money") -> None:
        if not isinstance(other, Money):
            raise TypeError(f"expected Money, got {type(other).__name__}")
        if other.currency != self.currency:
            raise CurrencyMismatch(self.currency, other.currency)

    def __add__(self, other: "Money") -> "Money":
        self._check(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: "Money") -> "Money":
        self._check(other)
        return Money(self.amount - other.amount, self.currency)

    def __neg__(self) -> "Money":
        return Money(-self.amount, self.currency)

    def times(self, factor: AmountLike) -> "Money":
        """This amount multiplied by ``factor``, rounded to the cent."""
        return Money(quantize(self.amount * to_decimal(factor)), self.currency)

    def percent(self, rate: AmountLike) -> "Money":
        """``rate`` percent of this amount, rounded to the cent."""
        return self.times(to_decimal(rate) / 100)

    def allocate(self, ratios: Sequence[int]) -> list["Money"]:
        """Split this amount by ``ratios`` without losing a cent.

        Each share is rounded down to the cent and the cents left over go to
        the first shares, one each: 100.00 split 1:1:1 is 33.34, 33.33, 33.33.
        """
        if not ratios or any(r < 0 for r in ratios) or sum(ratios) == 0:
            raise ValueError("ratios must be non-negative and not all zero")
        total = sum(ratios)
        cent = Decimal(1).scaleb(-CENT_PLACES)
        shares = [
            (self.amount * r / total).quantize(cent, rounding=ROUND_DOWN) for r in ratios
        ]
        remainder = int((self.amount - sum(shares)) / cent)
        for i in range(remainder):
            shares[i % len(shares)] += cent
        return [Money(s, self.currency) for s in shares]

    def __str__(self) -> str:
        return f"{self.amount} {self.currency}"
