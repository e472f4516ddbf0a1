import pytest
from xmltodict import EntitiesForbidden, parse


def test_doctype_without_entities_is_not_forbidden():
    xml = '<!DOCTYPE note SYSTEM "note.dtd"><note><to>Tove</to></note>'
    try:
        result = parse(xml)
    except EntitiesForbidden:
        pytest.fail("DOCTYPE without entities should be accepted")
    assert result == {"note": {"to": "Tove"}}
