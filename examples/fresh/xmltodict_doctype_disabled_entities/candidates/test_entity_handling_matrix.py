from xml.parsers.expat import ExpatError

import pytest
import xmltodict

DOCTYPE_ONLY = '<!DOCTYPE root SYSTEM "root.dtd"><root><a>1</a></root>'
WITH_COMMENT = "<!-- generated --><root><a>1</a></root>"
PREDEFINED = "<root><a>1 &amp; 2 &lt; 3</a></root>"
ENTITY_DECL = '<!DOCTYPE root [<!ENTITY x "boom">]><root><a>&x;</a></root>'


@pytest.mark.parametrize(
    "xml, expected",
    [
        (DOCTYPE_ONLY, {"root": {"a": "1"}}),
        (WITH_COMMENT, {"root": {"a": "1"}}),
        (PREDEFINED, {"root": {"a": "1 & 2 < 3"}}),
    ],
)
def test_safe_documents_parse(xml, expected):
    assert xmltodict.parse(xml) == expected


def test_entity_declarations_still_rejected():
    with pytest.raises(ExpatError):
        xmltodict.parse(ENTITY_DECL)
