from wcwidth import center


def test_odd_padding_extra_cell_goes_right():
    # documented: "For odd-width padding, the extra cell goes on the right"
    assert center("ab", 5, "-") == "-ab--"
    assert center("x", 4, "-") == "-x--"


def test_padding_total_is_kept():
    assert len(center("ab", 5, "-")) == 5
