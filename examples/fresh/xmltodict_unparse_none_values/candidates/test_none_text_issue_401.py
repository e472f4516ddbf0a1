import xmltodict


def test_none_text_and_attr_with_short_empty_elements():
    data = {"x": {"#text": None, "@pro": None}, "y": None}
    result = xmltodict.unparse(
        data,
        short_empty_elements=True,
        full_document=False,
    )
    # same output as xmltodict 0.15 for the element, and no "None" text
    assert "None" not in result
    assert result == '<x pro=""/><y/>'
