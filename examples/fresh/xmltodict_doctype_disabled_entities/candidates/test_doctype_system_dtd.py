# Reproduction for: disabled entities make an initial <!DOCTYPE ...> tag fail
import xmltodict


def test_parse_document_with_system_doctype():
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<!DOCTYPE data SYSTEM "diagram.dtd">\n'
        "<data><item>bar</item></data>\n"
    )
    assert xmltodict.parse(xml) == {"data": {"item": "bar"}}
