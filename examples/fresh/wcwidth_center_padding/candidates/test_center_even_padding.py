from wcwidth import center, width


def test_even_padding_is_symmetric():
    assert center("hi", 6) == "  hi  "
    assert center("abc", 7) == "  abc  "
    assert center("", 4) == "    "


def test_fillchar_and_sequences():
    assert center("hi", 6, fillchar="-") == "--hi--"
    assert center("\x1b[31mhi\x1b[0m", 6) == "  \x1b[31mhi\x1b[0m  "


def test_result_width():
    for text in ("\u4e2d\u6587", "cafe\u0301", "ok"):
        assert width(center(text, 10)) == 10
