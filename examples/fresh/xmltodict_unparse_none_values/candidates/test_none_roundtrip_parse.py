import xmltodict


def test_none_attribute_and_text_roundtrip():
    original = {"item": {"@code": None, "@id": "7", "#text": None}}
    xml = xmltodict.unparse(original)
    parsed = xmltodict.parse(xml)
    # None has no XML representation: it should come back empty, never as
    # the literal string "None".
    assert parsed == {"item": {"@code": "", "@id": "7"}}
