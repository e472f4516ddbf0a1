import iso8601


def test_compact_offset_is_preserved_in_isoformat():
    # Input used the basic (colon-less) offset form; isoformat should keep
    # the same representation.
    text = "2013-10-15T11:30+0530"
    parsed = iso8601.parse_date(text)
    assert parsed.hour == 11
    assert parsed.isoformat() == "2013-10-15T11:30:00+0530"
