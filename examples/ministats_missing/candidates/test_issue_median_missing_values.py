"""Reproduce the issue: median() crashes on None values instead of skipping
them like mean() does."""
from ministats import mean, median


def test_median_skips_none_like_mean():
    values = [70, None, 82]
    assert mean(values) == 76.0
    # median must ignore the missing value as well
    assert median(values) == 76.0


def test_median_with_several_missing_values():
    assert median([None, 4, None, 1, 3]) == 3
