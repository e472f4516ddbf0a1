from wcwidth import ljust, width


def test_ljust_pads_wide_character():
    # a CJK character followed by padding up to four cells;
    # the padding is made of plain spaces
    padded = ljust("\u4e2d", 4)
    assert padded.startswith("\u4e2d")
    assert padded == "\u4e2d   "
    assert width(padded) == 4
