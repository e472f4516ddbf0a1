import xmltodict


def test_none_value_renders_self_closing_tag():
    # An element whose value is None has no content, so it should be
    # written as a self-closing tag.
    data = {"root": {"empty": None}}
    out = xmltodict.unparse(data, full_document=False)
    assert out.startswith("<root>")
    assert out == "<root><empty/></root>"
