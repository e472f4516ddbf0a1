import wcwidth


def test_prefix_of_wide_string():
    text = "\u30b3\u30f3\u30cb\u30c1\u30cf"
    assert wcwidth.wcswidth(text, 0) == 0
    assert wcwidth.wcswidth(text, 1) == 2
    assert wcwidth.wcswidth(text, 3) == 6
    assert wcwidth.wcswidth(text, len(text)) == 10


def test_prefix_of_mixed_string():
    text = "ab\u4e2dcd"
    assert wcwidth.wcswidth(text, 2) == 2
    assert wcwidth.wcswidth(text, 3) == 4
    assert wcwidth.width(text) == 6


def test_control_character_in_prefix():
    assert wcwidth.wcswidth("a\x01b", 3) == -1
    assert wcwidth.wcswidth("a\x01b", 1) == 1
