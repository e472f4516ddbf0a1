from datetime import date
from decimal import Decimal

import pytest

from billcycle import BillingError, Plan, RefundError, Subscription

BASIC = Plan("basic", "30.00")
PRO = Plan("pro", "60.00")


def test_new_subscription_charges_first_period():
    sub = Subscription(BASIC, anchor=date(2024, 4, 1))
    assert sub.ledger.balance == Decimal("30.00")


def test_upgrade_mid_period():
    sub = Subscription(BASIC, anchor=date(2024, 4, 1))
    invoice = sub.change_plan(PRO, on=date(2024, 4, 16))
    assert [line.amount for line in invoice.lines] == [Decimal("-15.00"), Decimal("30.00")]
    assert invoice.total == Decimal("15.00")
    assert sub.plan == PRO
    assert sub.ledger.balance == Decimal("45.00")


def test_downgrade_refunds_difference():
    sub = Subscription(PRO, anchor=date(2024, 6, 1))
    invoice = sub.change_plan(BASIC, on=date(2024, 6, 11))
    assert invoice.total == Decimal("-20.00")
    assert sub.ledger.balance == Decimal("40.00")


def test_cancel_refunds_unused_days():
    sub = Subscription(BASIC, anchor=date(2024, 9, 1))
    assert sub.cancel(on=date(2024, 9, 21)) == Decimal("10.00")
    assert sub.ledger.balance == Decimal("20.00")
    with pytest.raises(BillingError):
        sub.cancel(on=date(2024, 9, 22))
    with pytest.raises(BillingError):
        sub.change_plan(PRO, on=date(2024, 9, 22))


def test_refund_cannot_exceed_balance():
    sub = Subscription(BASIC, anchor=date(2024, 4, 1))
    with pytest.raises(RefundError):
        sub.ledger.refund("goodwill", "30.01")


def test_invoice_line_str():
    sub = Subscription(BASIC, anchor=date(2024, 4, 1))
    invoice = sub.change_plan(PRO, on=date(2024, 4, 16))
    assert str(invoice.lines[0]) == "Unused time on basic: -$15.00"
