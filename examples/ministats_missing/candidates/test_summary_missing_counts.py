"""Summary.from_values must handle blank cells (None) as documented."""
from ministats import Summary


def test_summary_with_missing_weight():
    weights = [70, None, 82, 75]

    summary = Summary.from_values(weights)

    assert summary.count == 3
    assert summary.missing == 1
    assert summary.min == 70
    assert summary.median == 75
    assert summary.max == 82


def test_summary_of_completely_blank_column():
    summary = Summary.from_values([None, None])
    assert summary.count == 0
    assert summary.median is None
