from wcwidth import wcswidth


def test_wcswidth_n_larger_than_length():
    # measuring "up to 10 characters" of a 5 character string
    # should measure the whole string, like slicing text[:10]
    text = "hello"
    result = wcswidth(text, 10)

    assert result == 5
