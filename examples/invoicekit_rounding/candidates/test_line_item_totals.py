"""Line totals that end in exactly half a cent must be rounded up (see issue)."""
from decimal import Decimal

import pytest

from invoicekit import LineItem


def test_discounted_line_net_rounds_half_up():
    line = LineItem("Consulting", quantity=1, unit_price=Decimal("12.45"), discount=Decimal("0.10"))
    # 12.45 * 0.9 = 11.205 -> 11.21
    assert line.net == Decimal("11.21")


@pytest.mark.parametrize(
    "quantity, unit_price, expected",
    [(3, "0.115", "0.35"), (1, "0.125", "0.13"), (5, "0.049", "0.25")],
)
def test_line_net_half_cent(quantity, unit_price, expected):
    line = LineItem("Item", quantity=quantity, unit_price=Decimal(unit_price))
    assert line.net == Decimal(expected)
