"""VAT rates and the tax amounts computed from them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .errors import InvalidAmount
from .money import AmountLike, quantize, to_decimal


@dataclass(frozen=True)
class TaxRate:
    """A named VAT rate, e.g. ``TaxRate("reduced", Decimal("0.07"))``."""

    name: str
    rate: Decimal

    def __post_init__(self) -> None:
        rate = to_decimal(self.rate)
        if not 0 <= rate < 1:
            raise InvalidAmount(f"tax rate must be in [0, 1): {rate}")
        object.__setattr__(self, "rate", rate)

    def __str__(self) -> str:
        percent = (self.rate * 100).normalize()
        return f"{self.name} ({percent:f}%)"


STANDARD = TaxRate("standard", Decimal("0.19"))
REDUCED = TaxRate("reduced", Decimal("0.07"))
EXEMPT = TaxRate("exempt", Decimal("0"))


def _rate(rate: "TaxRate | AmountLike") -> Decimal:
    return rate.rate if isinstance(rate, TaxRate) else TaxRate("custom", rate).rate


def tax_amount(net: AmountLike, rate: "TaxRate | AmountLike") -> Decimal:
    """The tax on a ``net`` amount at ``rate``, rounded to the cent."""
    return quantize(to_decimal(net) * _rate(rate))


def gross_from_net(net: AmountLike, rate: "TaxRate | AmountLike") -> Decimal:
    """The gross amount: ``net`` plus its tax."""
    net = quantize(to_decimal(net))
    return net + tax_amount(net, rate)


def net_from_gross(gross: AmountLike, rate: "TaxRate | AmountLike") -> Decimal:
    """The net amount contained in a ``gross`` amount, rounded to the cent."""
    return quantize(to_decimal(gross) / (1 + _rate(rate)))
