import parse


def test_numbered_and_named_fields_together():
    result = parse.parse("{0:d} apples and {name}", "3 apples and pears")
    assert result.fixed == (3,)
    assert result.named == {"name": "pears"}


def test_findall_with_numbered_typed_field():
    values = [r[0] for r in parse.findall("<{0:d}>", "<1> <2> <3>")]
    assert values == [1, 2, 3]


def test_numbered_percentage():
    assert parse.parse("{0:%}", "50%")[0] == 0.5
