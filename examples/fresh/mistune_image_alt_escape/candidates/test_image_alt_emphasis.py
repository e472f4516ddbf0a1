# Formatting inside the alt text of an image.
import mistune


def test_emphasis_kept_in_alt():
    out = mistune.html("![*dogs* & cats](dogs.png)")
    assert out.startswith("<p><img ")
    assert 'src="dogs.png"' in out
    # the alt text should keep the inline formatting of the description
    assert out == '<p><img src="dogs.png" alt="<em>dogs</em> &amp; cats" /></p>\n'
