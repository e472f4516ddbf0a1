import pytest

from pagekit import ELLIPSIS, Paginator, elided_page_range

E = ELLIPSIS


def test_short_range_is_not_elided():
    assert list(elided_page_range(5, 3)) == [1, 2, 3, 4, 5]


def test_elided_in_the_middle():
    assert list(elided_page_range(20, 10, on_each_side=1, on_ends=1)) == [1, E, 9, 10, 11, E, 20]


def test_elided_near_the_start_and_end():
    assert list(elided_page_range(20, 2, on_each_side=1, on_ends=1)) == [1, 2, 3, E, 20]
    assert list(elided_page_range(20, 19, on_each_side=1, on_ends=1)) == [1, E, 18, 19, 20]


def test_accepts_a_paginator():
    paginator = Paginator(list(range(100)), per_page=5)
    assert list(elided_page_range(paginator, 1, on_each_side=1, on_ends=1)) == [1, 2, E, 20]


def test_negative_sizes_rejected():
    with pytest.raises(ValueError):
        list(elided_page_range(10, 1, on_each_side=-1))
