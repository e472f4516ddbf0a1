# HTMLRenderer.image: alt, src and title handling.
import mistune


def test_alt_with_ampersand():
    assert mistune.html("![a & b](i.png)") == '<p><img src="i.png" alt="a &amp; b" /></p>\n'


def test_alt_with_apostrophe():
    # quotes in attribute values must be escaped
    assert mistune.html("![it's](i.png)") == '<p><img src="i.png" alt="it&#x27;s" /></p>\n'


def test_empty_alt():
    assert mistune.html("![](i.png)") == '<p><img src="i.png" alt="" /></p>\n'


def test_src_with_ampersand():
    assert mistune.html("![x](a&b.png)") == '<p><img src="a&amp;b.png" alt="x" /></p>\n'
