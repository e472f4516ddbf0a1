# HTML comments that start a line are raw HTML blocks: Markdown inside them
# must be left alone (context for issue "Placeholder in HTML markup").
import markdown


def test_block_level_comment_is_not_parsed():
    src = "<!-- [**Bold link**](http://example.com) -->"
    assert markdown.markdown(src) == src


def test_block_level_comment_followed_by_paragraph():
    src = "<!-- *note* -->\n\nFor example **this**."
    html = markdown.markdown(src)
    assert html.startswith("<!-- *note* -->")
    assert "<p>For example <strong>this</strong>.</p>" in html


def test_plain_link_inside_inline_comment():
    html = markdown.markdown("For example <!-- [plain](http://example.com) -->")
    assert html == '<p>For example <!-- <a href="http://example.com">plain</a> --></p>'
