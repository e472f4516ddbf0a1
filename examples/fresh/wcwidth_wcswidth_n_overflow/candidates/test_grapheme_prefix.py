from wcwidth import iter_graphemes, wcswidth


def test_combining_accent_is_one_grapheme():
    text = "cafe\u0301"
    graphemes = list(iter_graphemes(text))
    # "e" + COMBINING ACUTE ACCENT forms the fifth cluster
    assert graphemes[4] == "e\u0301"
    assert wcswidth(text) == 4


def test_width_of_prefix_ending_before_accent():
    assert wcswidth("cafe\u0301", 3) == 3
