import markdown


def test_two_formatted_spans_in_commented_link():
    md = markdown.Markdown()
    src = "Note <!-- [**a** and *b*](http://x.org) --> end"
    first = md.convert(src)
    assert first == (
        '<p>Note <!-- <a href="http://x.org"><strong>a</strong> and <em>b</em></a> --> end</p>'
    )
    md.reset()
    assert md.convert(src) == first
