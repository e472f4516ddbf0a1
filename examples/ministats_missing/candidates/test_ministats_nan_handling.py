# Regression test for the issue: missing values in a column.
from ministats.missing import drop_missing
from ministats import median


def test_drop_missing_then_median():
    values = [70, None, 82, 75]
    cleaned = drop_missing(values)
    assert cleaned == [70, 82, 75]
    assert median(values) == 75


def test_drop_missing_all_none():
    assert drop_missing([None, None]) == []
