# An entity typed in the alt text is kept literally, i.e. its "&" is escaped.
import mistune


def test_entity_in_alt_is_literal():
    out = mistune.html("![a &amp; b](d.png)")
    assert out.startswith('<p><img src="d.png"')
    assert out.endswith(" /></p>\n")
    # the entity itself is escaped, so a browser shows "a &amp; b"
    assert out == '<p><img src="d.png" alt="a &amp;amp; b" /></p>\n'
