# Markdown inside inline raw HTML tags.
import markdown


def test_markdown_inside_span_is_left_alone():
    # raw inline HTML is passed through as-is, like an HTML block
    source = "See <span>[**b**](http://x.org)</span>"
    html = markdown.markdown(source)
    assert html.startswith("<p>See <span>")
    assert html == "<p>See <span>[**b**](http://x.org)</span></p>"
