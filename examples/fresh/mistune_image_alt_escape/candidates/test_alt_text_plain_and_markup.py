# Image alt text without characters that need escaping.
import mistune


def test_plain_alt():
    assert mistune.html("![plain](d.png)") == '<p><img src="d.png" alt="plain" /></p>\n'


def test_markup_is_stripped_from_alt():
    assert mistune.html("![*em* text](d.png)") == '<p><img src="d.png" alt="em text" /></p>\n'
    assert mistune.html("![<b>bold</b>](d.png)") == '<p><img src="d.png" alt="bold" /></p>\n'


def test_title_is_escaped_once():
    out = mistune.html('![x](d.png "t & u")')
    assert out == '<p><img src="d.png" alt="x" title="t &amp; u" /></p>\n'


def test_reference_image():
    out = mistune.html("![a][r]\n\n[r]: /i.png")
    assert out == '<p><img src="/i.png" alt="a" /></p>\n'
