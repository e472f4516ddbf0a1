# Dangling quote markers at the end of a quote are cleaned up by the renderer.
import mistune
from mistune.renderers.markdown import MarkdownRenderer


def test_trailing_markers_are_trimmed():
    md = mistune.create_markdown(renderer=MarkdownRenderer())
    assert md("> text\n") == "> text\n"
    # stray ">" characters after the text are dropped as well
    assert md("> text >>\n") == "> text\n"
    assert md("> a > b >\n") == "> a > b\n"
