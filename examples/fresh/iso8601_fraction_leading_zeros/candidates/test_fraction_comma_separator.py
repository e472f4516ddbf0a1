import pytest

import iso8601


@pytest.mark.parametrize(
    "text, micro",
    [
        ("2013-10-15T18:30:00,5Z", 500000),
        ("2013-10-15T18:30:00,25Z", 250000),
    ],
)
def test_comma_decimal_sign(text, micro):
    # ISO 8601 allows a comma as the decimal sign (and even prefers it).
    parsed = iso8601.parse_date(text)
    assert parsed.second == 0
    assert parsed.microsecond == micro
