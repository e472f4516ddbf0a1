import wcwidth


def test_center_wide_character_odd_width():
    # U+4E2D takes two cells, so 3 cells of padding remain in a width of 5
    result = wcwidth.center("\u4e2d", 5)
    assert wcwidth.width(result) == 5
    # same placement as str.center would use for a two-cell ascii text
    assert result == "  \u4e2d "


def test_center_wide_word_odd_width():
    word = "\u4e2d\u6587"  # 4 cells
    assert wcwidth.center(word, 7, fillchar="*") == "**" + word + "*"
