# Issue: MarkdownRenderer drops the last ">" of a block quote.
import mistune
from mistune.renderers import MarkdownRenderer


def test_inline_html_in_quote():
    md = mistune.create_markdown(renderer=MarkdownRenderer())
    assert md("> <b>raw</b>\n") == "> <b>raw</b>\n"


def test_autolink_in_quote():
    md = mistune.create_markdown(renderer=MarkdownRenderer())
    assert md("> <https://example.com>\n") == "> <https://example.com>\n"
