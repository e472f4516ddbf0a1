# Issue: image alt text is double-encoded.
import mistune
from mistune.renderers.html import escape_attribute


def test_alt_escaped_like_attribute():
    out = mistune.html("![dogs & cats](dogs.png)")
    assert 'alt="%s"' % escape_attribute("dogs & cats") in out


def test_alt_gt_escaped_like_attribute():
    out = mistune.html("![dogs > cats](dogs.png)")
    assert 'alt="%s"' % escape_attribute("dogs > cats") in out
