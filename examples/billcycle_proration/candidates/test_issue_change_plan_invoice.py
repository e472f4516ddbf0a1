# Reproduce the issue: upgrading mid-January should prorate over 31 days.
from datetime import date
from decimal import Decimal

from billcycle import Plan, Subscription


def test_upgrade_in_january_prorates_over_31_days():
    sub = Subscription(Plan("basic", "30.00"), anchor=date(2024, 1, 1))
    invoice = sub.change_plan(
        Plan("pro", "60.00"),
        on=date(2024, 1, 17),
        prorate=True,  # make proration explicit
    )
    amounts = [line.amount for line in invoice.lines]
    # 15 of 31 days remain
    assert amounts == [Decimal("-14.52"), Decimal("29.03")]
    assert invoice.total == Decimal("14.51")
