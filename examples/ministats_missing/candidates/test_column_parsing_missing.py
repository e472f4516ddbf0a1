# The issue involves blank CSV cells; check they are read as missing values.
from ministats import parse_cell, read_columns


def test_blank_cells_become_none():
    lines = ["sample,weight", "s1,70", "s2,", "s3,82", "s4,75"]
    columns = read_columns(lines)
    assert columns["weight"] == [70, None, 82, 75]


def test_missing_markers():
    for marker in ["", "NA", "n/a", "null", "-"]:
        assert parse_cell(marker) is None
