# Issue #397: a DOCTYPE with no entity declarations must not be refused.
import pytest
import xmltodict

XHTML = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
    '<html lang="en"><head><title>Hi</title></head>'
    '<body><p class="x">one</p><p>two</p></body></html>\n'
)


@pytest.mark.parametrize("source", [XHTML, XHTML.encode("utf-8")])
def test_xhtml_with_public_doctype(source):
    doc = xmltodict.parse(source, disable_entities=True)
    html = doc["html"]
    assert html["@lang"] == "en"
    assert html["head"]["title"] == "Hi"
    assert html["body"]["p"] == [{"@class": "x", "#text": "one"}, "two"]
