import iso8601


def test_seven_digit_fraction_is_rounded():
    # .1234567 s is 123456.7 us, which should round to the nearest
    # microsecond.
    text = "2013-10-15T18:30:00.1234567Z"
    parsed = iso8601.parse_date(text)
    assert parsed.second == 0
    assert parsed.microsecond == 123457
