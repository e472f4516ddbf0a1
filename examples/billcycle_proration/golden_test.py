from datetime import date
from decimal import Decimal

import pytest

from billcycle import BillingPeriod, Plan, Subscription, prorate

JANUARY = BillingPeriod(date(2024, 1, 1), date(2024, 2, 1))
FEBRUARY = BillingPeriod(date(2024, 2, 1), date(2024, 3, 1))


@pytest.mark.parametrize(
    "period, on, expected",
    [
        (JANUARY, date(2024, 1, 1), Decimal("30.00")),
        (JANUARY, date(2024, 1, 17), Decimal("14.52")),
        (FEBRUARY, date(2024, 2, 1), Decimal("30.00")),
        (FEBRUARY, date(2024, 2, 15), Decimal("15.52")),
    ],
)
def test_prorate_uses_actual_period_length(period, on, expected):
    assert prorate("30.00", period, on) == expected


def test_cancel_on_first_day_of_long_month_refunds_everything():
    sub = Subscription(Plan("basic", "30.00"), anchor=date(2024, 1, 1))
    assert sub.cancel(on=date(2024, 1, 1)) == Decimal("30.00")
    assert sub.ledger.balance == Decimal("0.00")
