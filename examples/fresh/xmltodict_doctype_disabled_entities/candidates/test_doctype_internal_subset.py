import xmltodict


def test_internal_subset_without_entity_declarations():
    xml = (
        '<?xml version="1.0"?>\n'
        "<!DOCTYPE config [\n"
        "  <!ELEMENT config (name, port)>\n"
        "  <!ELEMENT name (#PCDATA)>\n"
        "  <!ELEMENT port (#PCDATA)>\n"
        "  <!ATTLIST config version CDATA #IMPLIED>\n"
        "]>\n"
        '<config version="2"><name>api</name><port>8080</port></config>\n'
    )
    # Element/attribute declarations are harmless; only entities are a risk.
    doc = xmltodict.parse(xml)
    config = doc["config"]
    assert config["@version"] == "2"
    assert config["name"] == "api"
    assert config["port"] == "8080"
