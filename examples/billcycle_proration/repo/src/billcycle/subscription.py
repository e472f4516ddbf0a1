"""Plans, subscriptions, invoices and the ledger."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import List, Optional

from .errors import BillingError, RefundError
from .money import Number, format_money, round_money
from .periods import BillingPeriod, period_containing
from .proration import plan_change_amounts, prorate


@dataclass(frozen=True)
class Plan:
    """A named plan with a monthly price."""

    name: str
    price: Decimal

    def __post_init__(self) -> None:
        price = round_money(self.price)
        if price < 0:
            raise ValueError("plan price must not be negative")
        object.__setattr__(self, "price", price)


@dataclass(frozen=True)
class InvoiceLine:
    description: str
    amount: Decimal

    def __str__(self) -> str:
        return f"{self.description}: {format_money(self.amount)}"


@dataclass
class Invoice:
    """A list of lines; credits are negative amounts."""

    issued_on: date
    lines: List[InvoiceLine] = field(default_factory=list)

    def add(self, description: str, amount: Number) -> None:
        self.lines.append(InvoiceLine(description, round_money(amount)))

    @property
    def total(self) -> Decimal:
        return round_money(sum((line.amount for line in self.lines), Decimal(0)))


class Ledger:
    """Running balance of what a customer has paid, net of refunds."""

    def __init__(self) -> None:
        self.entries: List[InvoiceLine] = []

    @property
    def balance(self) -> Decimal:
        return round_money(sum((e.amount for e in self.entries), Decimal(0)))

    def charge(self, description: str, amount: Number) -> None:
        amount = round_money(amount)
        if amount < 0:
            raise BillingError("use refund() for negative amounts")
        self.entries.append(InvoiceLine(description, amount))

    def refund(self, description: str, amount: Number) -> Decimal:
        """Record a refund and return it.

        :raises RefundError: if the refund exceeds the current balance.
        """
        amount = round_money(amount)
        if amount > self.balance:
            raise RefundError(
                f"refund of {format_money(amount)} exceeds balance of {format_money(self.balance)}"
            )
        self.entries.append(InvoiceLine(description, -amount))
        return amount


class Subscription:
    """A monthly subscription to *plan*, billed on the day of *anchor*.

    Creating a subscription charges the first period in :attr:`ledger`.
    """

    def __init__(self, plan: Plan, anchor: date) -> None:
        self.plan = plan
        self.anchor = anchor
        self.cancelled_on: Optional[date] = None
        self.ledger = Ledger()
        self.ledger.charge(f"{plan.name} plan", plan.price)

    def period(self, on: date) -> BillingPeriod:
        """The billing period that contains *on*."""
        return period_containing(self.anchor, on)

    def change_plan(self, new_plan: Plan, on: date) -> Invoice:
        """Switch to *new_plan* on *on* and return the prorated invoice."""
        if self.cancelled_on is not None:
            raise BillingError("subscription is cancelled")
        period = self.period(on)
        credit, charge = plan_change_amounts(self.plan.price, new_plan.price, period, on)
        invoice = Invoice(issued_on=on)
        invoice.add(f"Unused time on {self.plan.name}", -credit)
        invoice.add(f"Remaining time on {new_plan.name}", charge)
        self.plan = new_plan
        if invoice.total >= 0:
            self.ledger.charge("Plan change", invoice.total)
        else:
            self.ledger.refund("Plan change", -invoice.total)
        return invoice

    def cancel(self, on: date) -> Decimal:
        """Cancel on *on*, refunding the unused part of the current period."""
        if self.cancelled_on is not None:
            raise BillingError("subscription is already cancelled")
        refund = prorate(self.plan.price, self.period(on), on)
        amount = self.ledger.refund("Cancellation", refund)
        self.cancelled_on = on
        return amount
