import xmltodict


def test_doctype_parses_when_entities_enabled():
    xml = (
        '<?xml version="1.0"?>\n'
        '<!DOCTYPE note SYSTEM "note.dtd">\n'
        '<note lang="en"><to>Tove</to><body>Don&apos;t forget</body></note>'
    )
    doc = xmltodict.parse(xml, disable_entities=False)
    assert doc["note"]["@lang"] == "en"
    assert doc["note"]["to"] == "Tove"
    assert doc["note"]["body"] == "Don't forget"


def test_plain_document_with_comment_default_settings():
    xml = "<!-- header --><note><to>Tove</to></note>"
    assert xmltodict.parse(xml) == {"note": {"to": "Tove"}}
    assert xmltodict.parse(xml, process_comments=True) == {
        "#comment": "header",
        "note": {"to": "Tove"},
    }
