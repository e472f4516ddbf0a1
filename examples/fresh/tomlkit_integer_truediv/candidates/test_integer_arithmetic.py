# Integer items should behave like ints for every arithmetic operator.
import pytest
from tomlkit import item


@pytest.mark.parametrize(
    "op, expected, rendered",
    [
        (lambda v: v + 5, 15, "15"),
        (lambda v: v - 12, -2, "-2"),
        (lambda v: v * 3, 30, "30"),
        (lambda v: v // 3, 3, "3"),
        (lambda v: v % 4, 2, "2"),
        (lambda v: v / 4, 2.5, "2.5"),
        (lambda v: v / 5, 2, "2"),
    ],
)
def test_integer_operators(op, expected, rendered):
    result = op(item(10))
    assert result == expected
    assert result.as_string() == rendered
