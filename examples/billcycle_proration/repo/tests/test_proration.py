from datetime import date
from decimal import Decimal

import pytest

from billcycle import BillingPeriod, plan_change_amounts, prorate

APRIL = BillingPeriod(date(2024, 4, 1), date(2024, 5, 1))


def test_prorate_half_period():
    assert prorate("30.00", APRIL, date(2024, 4, 16)) == Decimal("15.00")


def test_prorate_bounds():
    assert prorate("30.00", APRIL, date(2024, 4, 1)) == Decimal("30.00")
    assert prorate("30.00", APRIL, date(2024, 5, 1)) == Decimal("0.00")
    assert prorate("30.00", APRIL, date(2024, 6, 1)) == Decimal("0.00")


def test_prorate_rounds_to_cents():
    assert prorate("10.00", APRIL, date(2024, 4, 30)) == Decimal("0.33")


def test_prorate_rejects_negative_amount():
    with pytest.raises(ValueError):
        prorate("-1", APRIL, date(2024, 4, 2))


def test_plan_change_amounts():
    credit, charge = plan_change_amounts("30.00", "60.00", APRIL, date(2024, 4, 21))
    assert (credit, charge) == (Decimal("10.00"), Decimal("20.00"))
