# Sanity checks for BillingPeriod used by the proration code in the issue.
from datetime import date

from billcycle import BillingPeriod


def test_april_period_has_thirty_days():
    period = BillingPeriod(date(2024, 4, 1), date(2024, 5, 1))
    assert period.length_days == 30
    assert period.contains(date(2024, 4, 30))
    assert not period.contains(date(2024, 5, 1))


def test_next_period_starts_at_end():
    period = BillingPeriod(date(2024, 4, 1), date(2024, 5, 1))
    assert period.next().start == date(2024, 5, 1)
