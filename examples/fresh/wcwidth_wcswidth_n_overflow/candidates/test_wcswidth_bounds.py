from wcwidth import wcswidth


def test_wcswidth_n_argument_bounds():
    text = "hello"
    assert wcswidth(text) == 5
    assert wcswidth(text, n=None) == 5
    assert wcswidth(text, n=0) == 0
    assert wcswidth(text, n=3) == 3
    assert wcswidth(text, n=len(text)) == 5
    # n past the end measures the whole string
    assert wcswidth(text, n=50) == 5
    # a trailing newline is not printable, it should simply not count
    assert wcswidth("ab\n", n=10) == 2
