# Document the current output for a formatted link inside an inline comment.
import markdown
from markdown import util


def test_inline_comment_keeps_stash_reference():
    html = markdown.markdown("For example <!-- [**Bold link**](http://example.com) -->")
    placeholder = util.INLINE_PLACEHOLDER % "0000"
    assert html == (
        '<p>For example <!-- <a href="http://example.com">%s</a> --></p>' % placeholder
    )
