"""quantize() must round halves away from zero (ROUND_HALF_UP), whatever the
digit before the half is; other values round to the nearest cent."""
from decimal import Decimal

import pytest

from invoicekit import quantize


@pytest.mark.parametrize(
    "amount, places, expected",
    [
        ("0.125", 2, "0.13"),
        ("0.135", 2, "0.14"),
        ("2.345", 2, "2.35"),
        ("1.005", 2, "1.01"),
        ("-0.125", 2, "-0.13"),
        ("0.124", 2, "0.12"),
        ("0.126", 2, "0.13"),
        ("2.5", 0, "3"),
    ],
)
def test_quantize_half_up(amount, places, expected):
    assert quantize(Decimal(amount), places) == Decimal(expected)
