import pytest

import iso8601


@pytest.mark.parametrize(
    "text, suffix",
    [
        ("2013-10-15T11:30-09:30", "-09:30"),
        ("2013-10-15T11:30-0930", "-09:30"),
        ("2013-10-15T11:30-00:30", "-00:30"),
        ("2013-10-15T11:30-03:45", "-03:45"),
    ],
)
def test_negative_offsets_with_minutes_keep_sign(text, suffix):
    parsed = iso8601.parse_date(text)
    assert parsed.isoformat() == "2013-10-15T11:30:00" + suffix
