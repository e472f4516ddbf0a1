import wcwidth


def test_wide_characters_with_large_n():
    katakana = "\u30b3\u30f3\u30cb\u30c1\u30cf"  # five full-width characters
    assert wcwidth.wcswidth(katakana, n=20) == 10
    assert wcwidth.wcswidth(katakana, n=20) == wcwidth.wcswidth(katakana)


def test_wcstwidth_with_large_n():
    katakana = "\u30b3\u30f3"
    assert wcwidth.wcstwidth(katakana, n=99, term_program=False) == 4
