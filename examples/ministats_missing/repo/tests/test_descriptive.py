import math

import pytest

from ministats import mean, median, mode, percentile, stdev, variance


def test_mean_skips_missing_values():
    assert mean([1, None, 2, 3, None]) == 2
    assert mean([]) is None
    assert mean([None, float("nan")]) is None


def test_median_odd_and_even():
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5
    assert median([7]) == 7


def test_mode_first_seen_wins_ties():
    assert mode([1, 2, 2, 3, 3]) == 2
    assert mode([None, None, 5]) == 5
    assert mode([]) is None


def test_variance_and_stdev():
    data = [2, 4, 4, 4, 5, 5, 7, 9]
    assert variance(data, sample=False) == 4
    assert stdev(data, sample=False) == 2
    assert math.isclose(variance(data), 32 / 7)
    assert variance([1]) is None
    assert variance([1, None], sample=False) == 0


def test_percentile_linear_interpolation():
    data = [1, 2, 3, 4, None]
    assert percentile(data, 0) == 1
    assert percentile(data, 50) == 2.5
    assert percentile(data, 100) == 4
    assert percentile(data, 25) == 1.75
    assert percentile([], 50) is None
    with pytest.raises(ValueError):
        percentile(data, 101)
