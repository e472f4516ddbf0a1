# Reference values for the descriptive statistics on complete data.
import pytest

from ministats import mean, median, mode, percentile

DATA = [
    ([1], 1, 1, 1),
    ([5, 1], 3, 3, 2),
    ([3, 1, 2], 2, 2, 1.5),
    ([10, 2, 38, 23, 38, 23, 21], 22.142857142857142, 23, 15.5),
    ([-5, -1, -3, -4], -3.25, -3.5, -4.25),
    ([0.5, 0.25, 0.75, 1.0], 0.625, 0.625, 0.4375),
]


@pytest.mark.parametrize("values, mu, med, q1", DATA)
def test_reference_values(values, mu, med, q1):
    assert mean(values) == pytest.approx(mu)
    assert median(values) == med
    assert percentile(values, 25) == pytest.approx(q1)
    assert median(list(reversed(values))) == med


def test_mode_and_median_of_duplicates():
    values = [2, 2, 2, 9, 9]
    assert mode(values) == 2
    assert median(values) == 2
