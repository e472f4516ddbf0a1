# Issue: placeholder leaks out of inline HTML comments.
import markdown
from markdown.inlinepatterns import RawHtmlInlineProcessor


def test_raw_html_processor_unescapes_nested_placeholders():
    md = markdown.Markdown()
    proc = md.inlinePatterns["html"]
    assert isinstance(proc, RawHtmlInlineProcessor)
    html = md.convert("x <!-- [**b**](http://x.org) -->")
    assert "<strong>b</strong>" in html
