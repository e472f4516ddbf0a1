"""Issue: prorated amounts assume every month has 30 days."""
from datetime import date
from decimal import Decimal

from billcycle import Plan, Subscription


def test_change_plan_mid_january_uses_31_day_month():
    sub = Subscription(Plan("basic", "30.00"), anchor=date(2024, 1, 1))

    invoice = sub.change_plan(Plan("pro", "60.00"), on=date(2024, 1, 17))

    credit, charge = (line.amount for line in invoice.lines)
    # Jan 17..31 is 15 of 31 days
    assert credit == Decimal("-14.52")  # 30.00 * 15 / 31
    assert charge == Decimal("29.03")  # 60.00 * 15 / 31
    assert invoice.total == Decimal("14.51")
    assert sub.ledger.balance == Decimal("44.51")
