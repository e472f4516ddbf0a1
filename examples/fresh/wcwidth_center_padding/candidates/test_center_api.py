from wcwidth.justify import center


def test_center_matches_builtin_for_odd_width():
    assert center("hi", 5) == "hi".center(5)
    assert center("ab", 7) == "ab".center(7)


def test_center_even_width_unchanged():
    assert center("hi", 6) == "  hi  "
    assert center("", 2) == "  "
