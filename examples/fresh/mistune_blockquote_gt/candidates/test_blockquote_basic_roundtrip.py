# Block quotes reformatted by MarkdownRenderer (no trailing ">" involved).
import mistune
from mistune.renderers.markdown import MarkdownRenderer

reformat = mistune.create_markdown(renderer=MarkdownRenderer())


def test_simple_quote():
    assert reformat("> hello\n") == "> hello\n"


def test_quote_with_two_paragraphs():
    assert reformat("> a\n>\n> b\n") == "> a\n> \n> b\n"


def test_quote_followed_by_paragraph():
    assert reformat("> quote\n\npara\n") == "> quote\n\npara\n"


def test_nested_quote_plain_text():
    assert reformat("> > inner\n") == "> > inner\n"
