from wcwidth import center


def test_center_cases():
    # even padding is split evenly
    assert center("hi", 6) == "  hi  "
    assert center("abc", 7) == "  abc  "
    # nothing to pad
    assert center("hello", 5) == "hello"
    assert center("hello", 3) == "hello"
    # odd padding: like str.center, the extra cell goes on the left
    assert center("hi", 5) == "  hi "
    assert center("x", 4) == "  x "
