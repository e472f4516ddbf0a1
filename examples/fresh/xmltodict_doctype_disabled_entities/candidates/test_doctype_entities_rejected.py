# Security: with the default disable_entities=True, DTDs must be refused.
from xml.parsers.expat import ExpatError

import pytest
import xmltodict


DOC = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE catalog SYSTEM "catalog.dtd">
<catalog><book id="1">Dune</book></catalog>
"""


def test_doctype_is_rejected_by_default():
    with pytest.raises(ExpatError, match="entities are disabled"):
        xmltodict.parse(DOC)


def test_doctype_accepted_when_entities_enabled():
    result = xmltodict.parse(DOC, disable_entities=False)
    assert result["catalog"]["book"]["#text"] == "Dune"
