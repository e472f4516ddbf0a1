# Rendering parsed tokens back to Markdown keeps the content of nested quotes.
from mistune import BlockState, create_markdown
from mistune.renderers.markdown import MarkdownRenderer


def test_nested_quote_autolink_from_ast():
    parse = create_markdown(renderer="ast")
    tokens = parse("> > nested <https://example.com>\n")
    out = MarkdownRenderer()(tokens, state=BlockState())
    assert out == "> > nested <https://example.com>\n"
