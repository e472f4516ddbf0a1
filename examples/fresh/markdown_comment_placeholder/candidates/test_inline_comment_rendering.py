# Inline HTML comments: what gets rendered inside them.
import markdown


def render(text):
    return markdown.markdown(text)


def test_plain_link():
    assert render("a <!-- [x](http://x.org) --> b") == (
        '<p>a <!-- <a href="http://x.org">x</a> --> b</p>'
    )


def test_bold_link():
    assert render("a <!-- [**x**](http://x.org) --> b") == (
        '<p>a <!-- <a href="http://x.org"><strong>x</strong></a> --> b</p>'
    )


def test_bold_text_outside_link():
    # emphasis in a comment should be rendered the same way as link text
    assert render("a <!-- **x** --> b") == "<p>a <!-- <strong>x</strong> --> b</p>"


def test_comment_after_text_with_formatting():
    assert render("**a** <!-- c -->") == "<p><strong>a</strong> <!-- c --></p>"
