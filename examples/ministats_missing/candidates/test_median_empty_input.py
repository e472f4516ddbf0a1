# Issue: median([]) raises IndexError, while mean([]) returns None.
import pytest

from ministats import mean, median


@pytest.mark.parametrize("values", [[], [None], [None, None, None]])
def test_median_of_no_values_is_none(values):
    assert mean(values) is None
    assert median(values) is None


def test_median_single_value_with_missing():
    assert median([None, 7]) == 7
