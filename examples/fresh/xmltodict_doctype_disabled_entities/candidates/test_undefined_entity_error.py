# Entities are "disabled" by default, but HTML-style named entities in
# content should still be usable without declaring a DTD.
import xmltodict


def test_html_named_entity_is_expanded():
    xml = "<footer>&copy; 2024 ACME</footer>"
    doc = xmltodict.parse(xml)
    assert doc["footer"] == "\u00a9 2024 ACME"
