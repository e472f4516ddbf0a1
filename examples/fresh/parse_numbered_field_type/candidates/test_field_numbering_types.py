import parse


def test_numbered_float_field():
    result = parse.parse("value={0:f}", "value=5.13")
    assert result is not None
    assert result.fixed == (5.13,)


def test_two_numbered_int_fields():
    result = parse.parse("{0:d}-{1:d}", "3-4")
    assert result.fixed == (3, 4)


def test_numbered_field_with_width():
    result = parse.parse("{0:02d}:{1:02d}", "07:05")
    assert result.fixed == (7, 5)


def test_numbered_hex_field():
    assert parse.parse("{0:x}", "ff")[0] == 255
