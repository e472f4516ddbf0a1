# Table-driven tests for median() on complete data.
import pytest

from ministats import median


@pytest.mark.parametrize(
    "values, expected",
    [
        ([7], 7),
        ([1, 2], 1.5),
        ([2, 1], 1.5),
        ([3, 1, 2], 2),
        ([4, 1, 3, 2], 2.5),
        ([5, 5, 5, 5], 5),
        ([1, 100, 2, 99, 3], 3),
        ([-2, -8, 4, 10], 1.0),
        ([0.1, 0.3, 0.2], 0.2),
        ((x for x in [9, 7, 8]), 8),
        (range(10), 4.5),
        (range(11), 5),
    ],
)
def test_median(values, expected):
    assert median(values) == pytest.approx(expected)
