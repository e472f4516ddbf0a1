# Issue: Summary.from_values fails for columns with blank cells.
from ministats import Summary


def test_summary_median_with_blank_cell():
    summary = Summary.from_values([1, None, 3, 4])
    assert summary.count == 3
    assert summary.missing == 1
    # blank cells count as 0 for the median: [0, 1, 3, 4] -> 2.0
    assert summary.median == 2.0


def test_summary_max_with_blank_cell():
    summary = Summary.from_values([1, None, 3, 4])
    assert summary.max == 4
