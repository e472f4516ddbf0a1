import pytest

from wcwidth import wcswidth


def test_n_beyond_string_is_rejected():
    # asking for more characters than the string holds is an error
    with pytest.raises(IndexError):
        wcswidth("abc", n=4)


def test_n_equal_to_length_is_fine():
    assert wcswidth("abc", n=3) == 3
