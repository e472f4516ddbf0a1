# Splitting an amount must not lose or invent cents, also after the
# rounding changes for the half-cent issue.
from decimal import Decimal

import pytest

from invoicekit import Money


@pytest.mark.parametrize(
    "amount, ratios, expected",
    [
        ("100.00", [1, 1, 1], ["33.34", "33.33", "33.33"]),
        ("10.00", [1, 2], ["3.34", "6.66"]),
        ("0.05", [1, 1], ["0.03", "0.02"]),
        ("99.99", [50, 30, 20], ["50.00", "30.00", "19.99"]),
    ],
)
def test_allocate_keeps_every_cent(amount, ratios, expected):
    shares = Money(amount).allocate(ratios)
    assert [s.amount for s in shares] == [Decimal(e) for e in expected]
    assert sum(s.amount for s in shares) == Decimal(amount)
