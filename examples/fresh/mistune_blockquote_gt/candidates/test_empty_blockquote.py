# An empty block quote should survive reformatting.
import mistune
from mistune.renderers.markdown import MarkdownRenderer


def test_empty_block_quote_is_kept():
    md = mistune.create_markdown(renderer=MarkdownRenderer())
    out = md(">\n")
    assert out.endswith("\n")
    assert out == ">\n"
