import wcwidth


def test_center_two_chars_in_five_cells():
    # str.center puts the extra padding cell on the left here
    expected = "hi".center(5)
    result = wcwidth.center("hi", 5)

    assert len(result) == 5
    assert result == expected
