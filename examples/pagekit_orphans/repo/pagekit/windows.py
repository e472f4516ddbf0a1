"""Navigation windows: which page links to show around the current page."""

from __future__ import annotations

from typing import Iterator, Union

from .paginator import Paginator

#: Marker yielded by :func:`elided_page_range` where page numbers are skipped.
ELLIPSIS = "\u2026"


def elided_page_range(
    paginator: Union[Paginator, int],
    number: int = 1,
    *,
    on_each_side: int = 3,
    on_ends: int = 2,
) -> Iterator[Union[int, str]]:
    """Yield page numbers around *number*, eliding long runs with :data:`ELLIPSIS`.

    *paginator* may be a :class:`Paginator` or simply the number of pages.

    >>> list(elided_page_range(20, 10, on_each_side=1, on_ends=1))
    [1, '…', 9, 10, 11, '…', 20]
    """
    num_pages = paginator.num_pages if isinstance(paginator, Paginator) else int(paginator)
    if on_each_side < 0 or on_ends < 0:
        raise ValueError("on_each_side and on_ends must not be negative")
    number = min(max(int(number), 1), max(num_pages, 1))

    if num_pages <= (on_each_side + on_ends) * 2 + 1:
        yield from range(1, num_pages + 1)
        return

    if number > 1 + on_each_side + on_ends + 1:
        yield from range(1, on_ends + 1)
        yield ELLIPSIS
        yield from range(number - on_each_side, number + 1)
    else:
        yield from range(1, number + 1)

    if number < num_pages - on_each_side - on_ends - 1:
        yield from range(number + 1, number + on_each_side + 1)
        yield ELLIPSIS
        yield from range(num_pages - on_ends + 1, num_pages + 1)
    else:
        yield from range(number + 1, num_pages + 1)
