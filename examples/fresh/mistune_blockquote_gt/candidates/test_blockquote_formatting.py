# MarkdownRenderer.block_quote: several shapes of quoted content.
import mistune
from mistune.renderers.markdown import MarkdownRenderer

md = mistune.create_markdown(renderer=MarkdownRenderer())


def test_quote_ending_with_autolink():
    assert md("> see <https://example.com>\n") == "> see <https://example.com>\n"


def test_quote_with_fenced_code():
    src = "> ```\n> code >\n> ```\n"
    assert md(src) == src


def test_quote_heading_then_text():
    # the heading and the text are in one quote, no blank line between them
    assert md("> # Title\n> body\n") == "> # Title\n> body\n"


def test_quote_list():
    assert md("> - one\n> - two\n") == "> - one\n> - two\n"
