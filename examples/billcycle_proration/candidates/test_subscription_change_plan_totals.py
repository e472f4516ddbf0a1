"""Plan change invoice totals for a 31-day month (see issue)."""
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from billcycle import Plan, Subscription


def test_upgrade_total_is_prorated_price_difference():
    basic = Plan("basic", "30.00")
    pro = Plan("pro", "60.00")
    sub = Subscription(basic, anchor=date(2024, 1, 1))

    invoice = sub.change_plan(pro, on=date(2024, 1, 17))

    # The customer pays the price difference for the 15 remaining days of 31.
    expected = ((pro.price - basic.price) * 15 / 31).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP
    )
    assert invoice.total == expected  # 14.52
    assert len(invoice.lines) == 2
