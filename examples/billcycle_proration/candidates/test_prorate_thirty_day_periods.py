# Proration reference values (amount * remaining days / period length).
from datetime import date
from decimal import Decimal

import pytest

from billcycle import BillingPeriod, plan_change_amounts, prorate

APRIL = BillingPeriod(date(2024, 4, 1), date(2024, 5, 1))
JUNE_15 = BillingPeriod(date(2024, 6, 15), date(2024, 7, 15))
NOVEMBER = BillingPeriod(date(2024, 11, 1), date(2024, 12, 1))


@pytest.mark.parametrize("period", [APRIL, JUNE_15, NOVEMBER])
@pytest.mark.parametrize(
    "offset, expected",
    [(0, ["9.99", "30.00", "100.00"]), (1, ["9.66", "29.00", "96.67"]),
     (9, ["6.99", "21.00", "70.00"]), (14, ["5.33", "16.00", "53.33"])],
)
def test_prorate_reference_values(period, offset, expected):
    on = period.start.replace(day=period.start.day + offset)
    amounts = [prorate(a, period, on) for a in ("9.99", "30.00", 100)]
    assert amounts == [Decimal(e) for e in expected]


def test_prorate_edges_and_plan_change():
    assert prorate("0", APRIL, date(2024, 4, 10)) == Decimal("0.00")
    assert prorate("100", APRIL, date(2024, 4, 30)) == Decimal("3.33")
    assert prorate("100", APRIL, date(2024, 3, 1)) == Decimal("100.00")
    assert prorate("100", APRIL, date(2024, 5, 2)) == Decimal("0.00")
    with pytest.raises(ValueError):
        prorate("-5", APRIL, date(2024, 4, 10))
    assert plan_change_amounts("30", "90", APRIL, date(2024, 4, 21)) == (
        Decimal("10.00"), Decimal("30.00"))
