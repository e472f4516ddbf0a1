# Formatting of amounts around the issue: symbols, separators and rounding
# of values that are not half a cent.
from decimal import Decimal

import pytest

from invoicekit import format_amount


@pytest.mark.parametrize(
    "amount, currency, expected",
    [
        (Decimal("1234.5"), "EUR", "€1,234.50"),
        (Decimal("0.1"), "USD", "$0.10"),
        (Decimal("-12"), "GBP", "-£12.00"),
        (Decimal("1000000"), "EUR", "€1,000,000.00"),
        (Decimal("0.126"), "EUR", "€0.13"),
        (Decimal("0.124"), "EUR", "€0.12"),
    ],
)
def test_format_amount(amount, currency, expected):
    assert format_amount(amount, currency) == expected
