import pytest

import markdown


@pytest.mark.parametrize(
    "inner, rendered",
    [
        ("**Bold link**", "<strong>Bold link</strong>"),
        ("*it*", "<em>it</em>"),
        ("`code`", "<code>code</code>"),
    ],
)
def test_formatted_link_text_in_inline_comment(inner, rendered):
    src = "See <!-- [%s](http://example.com) -->" % inner
    expected = '<p>See <!-- <a href="http://example.com">%s</a> --></p>' % rendered
    assert markdown.markdown(src) == expected
