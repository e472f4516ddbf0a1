import pytest

import wcwidth

FAMILY = "\U0001F468\u200D\U0001F469\u200D\U0001F467"


@pytest.mark.parametrize("extra", [1, 10, 100])
def test_zwj_sequence_with_n_past_end(extra):
    expected = wcwidth.wcswidth(FAMILY)
    assert wcwidth.wcswidth(FAMILY, n=len(FAMILY) + extra) == expected


def test_trailing_zwj_with_n_past_end():
    assert wcwidth.wcswidth("a\u200D", n=5) == 1
