# Reproduction: the closing ">" of an autolink in a block quote is dropped.
import mistune
from mistune.renderers.markdown import MarkdownRenderer


def test_autolink_in_block_quote_keeps_closing_bracket():
    md = mistune.create_markdown(renderer=MarkdownRenderer())
    out = md("> <https://example.com>\n")
    # before the fix this came back as '> <https://example.com\n'
    assert out.rstrip("\n").endswith(">")
    assert out == "> <https://example.com>\n"
