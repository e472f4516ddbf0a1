# Thorough checks of BillingPeriod.days_remaining and period lookup,
# which the proration in the issue is built on.
from datetime import date

import pytest

from billcycle import BillingPeriod, period_containing

JANUARY = BillingPeriod(date(2024, 1, 1), date(2024, 2, 1))
FEBRUARY = BillingPeriod(date(2024, 2, 1), date(2024, 3, 1))


@pytest.mark.parametrize(
    "period, on, remaining",
    [
        (JANUARY, date(2023, 12, 31), 31),
        (JANUARY, date(2024, 1, 1), 31),
        (JANUARY, date(2024, 1, 17), 15),
        (JANUARY, date(2024, 1, 31), 1),
        (JANUARY, date(2024, 2, 1), 0),
        (FEBRUARY, date(2024, 2, 1), 29),
        (FEBRUARY, date(2024, 2, 15), 15),
        (FEBRUARY, date(2024, 3, 5), 0),
    ],
)
def test_days_remaining(period, on, remaining):
    assert period.days_remaining(on) == remaining
    assert period.days_used(on) == period.length_days - remaining


def test_period_containing_mid_month_anchor():
    anchor = date(2024, 3, 15)
    assert period_containing(anchor, date(2024, 6, 20)).start == date(2024, 6, 15)
    assert period_containing(anchor, date(2024, 6, 14)).start == date(2024, 5, 15)
    assert period_containing(anchor, date(2024, 6, 14)).length_days == 31
