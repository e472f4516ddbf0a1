from datetime import date

import pytest

from billcycle import BillingPeriod, add_months, period_containing


def test_add_months_clamps_to_short_months():
    assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)
    assert add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)
    assert add_months(date(2024, 2, 29), 1, anchor_day=31) == date(2024, 3, 31)
    assert add_months(date(2024, 11, 15), 3) == date(2025, 2, 15)


def test_period_length_and_remaining_days():
    period = BillingPeriod(date(2024, 4, 1), date(2024, 5, 1))
    assert period.length_days == 30
    assert period.days_remaining(date(2024, 4, 1)) == 30
    assert period.days_remaining(date(2024, 4, 16)) == 15
    assert period.days_remaining(date(2024, 5, 1)) == 0
    assert period.days_used(date(2024, 4, 11)) == 10


def test_period_rejects_empty_range():
    with pytest.raises(ValueError):
        BillingPeriod(date(2024, 4, 1), date(2024, 4, 1))


def test_period_containing():
    anchor = date(2024, 1, 31)
    assert period_containing(anchor, date(2024, 3, 5)) == BillingPeriod(
        date(2024, 2, 29), date(2024, 3, 31)
    )
    assert period_containing(anchor, date(2024, 1, 31)).start == date(2024, 1, 31)
    with pytest.raises(ValueError):
        period_containing(anchor, date(2024, 1, 1))


def test_next_period():
    period = BillingPeriod(date(2024, 1, 31), date(2024, 2, 29))
    assert period.next() == BillingPeriod(date(2024, 2, 29), date(2024, 3, 31))
