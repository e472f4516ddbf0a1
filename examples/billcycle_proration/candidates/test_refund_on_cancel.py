# Reproduction from the issue: cancelling on the first day of a 31-day
# billing period raised RefundError because the refund exceeded the charge.
from datetime import date
from decimal import Decimal

from billcycle import Plan, Subscription


def test_cancel_on_first_day_of_january_refunds_full_price():
    sub = Subscription(Plan("basic", "30.00"), anchor=date(2024, 1, 1))
    refund = sub.cancel(on=date(2024, 1, 1))
    assert refund == Decimal("30.00")
    assert sub.ledger.balance == Decimal("0.00")


def test_cancel_mid_february_uses_29_days():
    sub = Subscription(Plan("basic", "30.00"), anchor=date(2024, 2, 1))
    # Feb 15..29 is 15 of 29 days in 2024
    assert sub.cancel(on=date(2024, 2, 15)) == Decimal("15.52")
