# Reproduction for "Placeholder in HTML markup": formatted link text inside an
# inline HTML comment leaks the \x02klzzwxh:NNNN\x03 placeholder.
import markdown


def test_no_placeholder_in_inline_comment_output():
    html = markdown.markdown("For example <!-- [**Bold link**](http://example.com) -->")
    assert "\x02" not in html
    assert "\x03" not in html
    assert "klzzwxh" not in html
