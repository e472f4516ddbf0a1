# parse should be the inverse of format for zero-precision specs.
from decimal import Decimal

import pytest

import parse


@pytest.mark.parametrize(
    "spec, value",
    [
        (".0f", 20.0),
        ("02.0f", 7.0),
        (".0F", Decimal("20")),
        (".0e", 20.0),
    ],
)
def test_zero_precision_roundtrip(spec, value):
    text = format(value, spec)
    result = parse.parse("{:" + spec + "}", text)
    assert result is not None, (spec, text)
    assert result[0] == value
