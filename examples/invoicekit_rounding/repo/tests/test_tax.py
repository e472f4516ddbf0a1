from decimal import Decimal

import pytest

from invoicekit import REDUCED, STANDARD, InvalidAmount, TaxRate, gross_from_net, net_from_gross, tax_amount


def test_tax_amount_with_named_and_plain_rates():
    assert tax_amount(Decimal("100.00"), STANDARD) == Decimal("19.00")
    assert tax_amount("12.99", REDUCED) == Decimal("0.91")
    assert tax_amount(Decimal("59.90"), Decimal("0.19")) == Decimal("11.38")


def test_gross_and_net_round_trip():
    assert gross_from_net(Decimal("100"), STANDARD) == Decimal("119.00")
    assert net_from_gross(Decimal("119.00"), STANDARD) == Decimal("100.00")
    assert net_from_gross(Decimal("10.00"), REDUCED) == Decimal("9.35")


def test_tax_rate_validation_and_str():
    assert str(STANDARD) == "standard (19%)"
    assert str(TaxRate("reduced", "0.055")) == "reduced (5.5%)"
    with pytest.raises(InvalidAmount):
        TaxRate("bogus", Decimal("1.5"))
