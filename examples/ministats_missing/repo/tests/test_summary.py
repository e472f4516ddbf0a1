from ministats import Summary


def test_summary_of_complete_column():
    summary = Summary.from_values([4, 1, 3, 2, 5])
    assert summary.count == 5
    assert summary.missing == 0
    assert summary.mean == 3
    assert (summary.min, summary.median, summary.max) == (1, 3, 5)
    assert (summary.q1, summary.q3) == (2, 4)


def test_summary_format():
    text = Summary.from_values([1.0, 2.0, 3.0]).format(precision=1)
    lines = text.splitlines()
    assert lines[0].split() == ["count", "3"]
    assert lines[2].split() == ["mean", "2.0"]
