import pytest

from ministats import Summary, median


@pytest.mark.parametrize(
    "values, expected",
    [
        ([70, None, 82, 75], 75),
        ([None, 3, 1], 2.0),
        ([float("nan"), 5, 1, 3], 3),
        ([], None),
        ([None, None], None),
    ],
)
def test_median_skips_missing_values(values, expected):
    assert median(values) == expected


def test_summary_of_column_with_missing_values():
    summary = Summary.from_values([70, None, 82, 75])
    assert (summary.count, summary.missing) == (3, 1)
    assert summary.median == 75


def test_summary_of_empty_column():
    summary = Summary.from_values([None, None])
    assert (summary.count, summary.missing) == (0, 2)
    assert summary.median is None and summary.mean is None
