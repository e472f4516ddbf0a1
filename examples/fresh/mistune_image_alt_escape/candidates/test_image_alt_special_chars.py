import html
import re

import pytest

import mistune


@pytest.mark.parametrize(
    "alt",
    ["dogs > cats", '"quoted"', "a < b & c", "x & y"],
)
def test_alt_attribute_unescapes_to_source_text(alt):
    out = mistune.html("[![%s](i.png)](http://example.com)" % alt)
    m = re.search(r'alt="([^"]*)"', out)
    assert m is not None
    assert html.unescape(m.group(1)) == alt
