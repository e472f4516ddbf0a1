# Reproduction for "Double-encoding of image alts".
import mistune


def test_ampersand_in_alt_is_encoded_once():
    out = mistune.html("![dogs & cats](dogs.png)")
    assert 'src="dogs.png"' in out
    assert 'alt="dogs &amp; cats"' in out
    # "&amp;amp;" would show up as "&amp;" in the browser
    assert "&amp;amp;" not in out
