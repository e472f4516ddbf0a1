from wcwidth import string_width, wcswidth


def test_string_width_matches_wcswidth_for_large_n():
    text = "\u4e2d\u6587abc"
    assert string_width(text) == 7
    assert wcswidth(text, n=100) == string_width(text)


def test_string_width_ascii():
    assert string_width("abc") == 3
