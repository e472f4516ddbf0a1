import pytest

import mistune
from mistune.renderers.markdown import MarkdownRenderer

to_markdown = mistune.create_markdown(renderer=MarkdownRenderer())
to_html = mistune.create_markdown(escape=False)


@pytest.mark.parametrize(
    "source",
    [
        "> <b>raw</b>\n",
        "> a > b >\n",
        "> - item <https://x.y>\n",
    ],
)
def test_reformatted_quote_renders_the_same_html(source):
    assert to_html(to_markdown(source)) == to_html(source)
