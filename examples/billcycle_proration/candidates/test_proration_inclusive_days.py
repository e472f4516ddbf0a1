# Issue: proration over a 31-day January is wrong.
from datetime import date
from decimal import Decimal

from billcycle import BillingPeriod, prorate


def test_prorate_counts_change_day_on_both_sides():
    january = BillingPeriod(date(2024, 1, 1), date(2024, 2, 1))
    # Changing on Jan 17: Jan 17..Jan 31 inclusive plus the change day
    # itself is 16 billable days out of 31.
    remaining_days = 16
    expected = (Decimal("30.00") * remaining_days / 31).quantize(Decimal("0.01"))
    assert prorate("30.00", january, date(2024, 1, 17)) == expected  # 15.48


def test_prorate_full_january():
    january = BillingPeriod(date(2024, 1, 1), date(2024, 2, 1))
    assert prorate("31.00", january, date(2024, 1, 1)) == Decimal("31.00")
