"""Day-based proration.

When a customer changes plan or cancels in the middle of a billing period,
the unused part of the period is credited and the remaining part is billed
at the new price.  Amounts are spread evenly over the days of the period.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from .money import Number, round_money, to_decimal
from .periods import BillingPeriod

# Billing months are normalised to 30 days.
DAYS_PER_MONTH = 30


def prorate(amount: Number, period: BillingPeriod, on: date) -> Decimal:
    """Return the part of *amount* that pays for *period* from *on* onwards.

    The day *on* itself is included.  The result is rounded to cents; a date
    at or after the end of the period gives ``0.00`` and a date at or before
    its start gives the full *amount*.
    """
    amount = to_decimal(amount)
    if amount < 0:
        raise ValueError("cannot prorate a negative amount")
    remaining = period.days_remaining(on)
    if remaining == 0:
        return round_money(0)
    return round_money(amount * remaining / DAYS_PER_MONTH)


def plan_change_amounts(
    old_price: Number, new_price: Number, period: BillingPeriod, on: date
) -> tuple[Decimal, Decimal]:
    """Return ``(credit, charge)`` for switching plans on *on*.

    *credit* is the unused part of the old plan, *charge* the cost of the new
    plan for the rest of the period.  Both are non-negative.
    """
    credit = prorate(old_price, period, on)
    charge = prorate(new_price, period, on)
    return credit, charge
