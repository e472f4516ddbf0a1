from ministats import parse_cell, read_columns


def test_parse_cell():
    assert parse_cell(" 42 ") == 42
    assert parse_cell("2.5") == 2.5
    assert parse_cell("N/A") is None
    assert parse_cell("") is None
    assert parse_cell("kg") == "kg"


def test_read_columns_pads_short_rows():
    lines = ["name,weight,height", "a,70,180", "b,,175", "c,82", ""]
    columns = read_columns(lines)
    assert columns["weight"] == [70, None, 82]
    assert columns["height"] == [180, 175, None]
    assert read_columns([]) == {}
