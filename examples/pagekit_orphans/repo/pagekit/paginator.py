"""Core pagination classes.

A :class:`Paginator` splits a sliceable sequence into numbered
:class:`Page` objects.  Page numbers are 1-based, item indexes reported by
:meth:`Page.start_index` and :meth:`Page.end_index` are 1-based as well, so
they can be shown to users directly ("Showing 11-20 of 57").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Iterator

from .exceptions import EmptyPage, PageNotAnInteger


class Paginator:
    """Split *object_list* into pages of at most *per_page* items.

    :param object_list: any sequence that supports ``len()`` and slicing.
    :param per_page: maximum number of items on a page.
    :param orphans: when the last page would contain this many items or
        fewer, they are appended to the previous page instead of getting a
        page of their own.  Must be smaller than *per_page*.
    :param allow_empty_first_page: if false, asking for page 1 of an empty
        list raises :class:`EmptyPage`.
    """

    def __init__(
        self,
        object_list: Sequence[Any],
        per_page: int,
        orphans: int = 0,
        allow_empty_first_page: bool = True,
    ) -> None:
        per_page = int(per_page)
        orphans = int(orphans)
        if per_page < 1:
            raise ValueError("per_page must be a positive integer")
        if orphans < 0 or orphans >= per_page:
            raise ValueError("orphans must be >= 0 and smaller than per_page")
        self.object_list = object_list
        self.per_page = per_page
        self.orphans = orphans
        self.allow_empty_first_page = allow_empty_first_page

    def __repr__(self) -> str:
        return (
            f"<Paginator count={self.count} per_page={self.per_page} "
            f"orphans={self.orphans}>"
        )

    def __iter__(self) -> Iterator["Page"]:
        for number in self.page_range:
            yield self.page(number)

    @property
    def count(self) -> int:
        """Total number of items across all pages."""
        return len(self.object_list)

    @property
    def num_pages(self) -> int:
        """Total number of pages, taking *orphans* into account."""
        if self.count == 0 and not self.allow_empty_first_page:
            return 0
        hits = max(1, self.count - self.orphans)
        return math.ceil(hits / self.per_page)

    @property
    def page_range(self) -> range:
        """A 1-based range of valid page numbers."""
        return range(1, self.num_pages + 1)

    def validate_number(self, number: Any) -> int:
        """Return *number* as an int if it is a valid page number.

        :raises PageNotAnInteger: if *number* is not integral.
        :raises EmptyPage: if *number* is below 1 or past the last page.
        """
        if isinstance(number, float) and not number.is_integer():
            raise PageNotAnInteger("That page number is not an integer")
        try:
            number = int(number)
        except (TypeError, ValueError):
            raise PageNotAnInteger("That page number is not an integer") from None
        if number < 1:
            raise EmptyPage("That page number is less than 1")
        if number > self.num_pages:
            if number == 1 and self.allow_empty_first_page:
                return number
            raise EmptyPage("That page contains no results")
        return number

    def page(self, number: Any) -> "Page":
        """Return the :class:`Page` with the given 1-based *number*."""
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans > self.count:
            top = self.count
        return Page(self.object_list[bottom:top], number, self)

    def get_page(self, number: Any) -> "Page":
        """Like :meth:`page` but never raises for a bad page number.

        Non-integer input gives the first page, out-of-range input gives the
        last page.  Handy for values taken straight from a query string.
        """
        try:
            number = self.validate_number(number)
        except PageNotAnInteger:
            number = 1
        except EmptyPage:
            number = max(self.num_pages, 1)
        return self.page(number)

    def locate(self, index: int) -> int:
        """Return the number of the page that holds the item at *index*.

        *index* is a 0-based position in :attr:`object_list`; negative values
        count from the end.  The pages are walked with :meth:`page` so the
        answer always agrees with what the pages actually contain.

        :raises IndexError: if *index* is out of range.
        """
        if index < 0:
            index += self.count
        if not 0 <= index < self.count:
            raise IndexError("item index out of range")
        for page in self:
            if page.start_index() <= index + 1 <= page.end_index():
                return page.number
        raise LookupError(f"item {index} is not on any page")


class Page(Sequence):
    """One page of results, behaving like a read-only sequence."""

    def __init__(self, object_list: Sequence[Any], number: int, paginator: Paginator) -> None:
        self.object_list = object_list
        self.number = number
        self.paginator = paginator

    def __repr__(self) -> str:
        return f"<Page {self.number} of {self.paginator.num_pages}>"

    def __len__(self) -> int:
        return len(self.object_list)

    def __getitem__(self, index):
        if not isinstance(index, (int, slice)):
            raise TypeError(
                f"Page indices must be integers or slices, not {type(index).__name__}."
            )
        if not isinstance(self.object_list, list):
            self.object_list = list(self.object_list)
        return self.object_list[index]

    def has_next(self) -> bool:
        return self.number < self.paginator.num_pages

    def has_previous(self) -> bool:
        return self.number > 1

    def has_other_pages(self) -> bool:
        return self.has_previous() or self.has_next()

    def next_page_number(self) -> int:
        return self.paginator.validate_number(self.number + 1)

    def previous_page_number(self) -> int:
        return self.paginator.validate_number(self.number - 1)

    def start_index(self) -> int:
        """1-based index of the first item on this page (0 if there are none)."""
        if self.paginator.count == 0:
            return 0
        return self.paginator.per_page * (self.number - 1) + 1

    def end_index(self) -> int:
        """1-based index of the last item on this page (0 if there are none)."""
        if self.paginator.count == 0:
            return 0
        return self.start_index() + len(self) - 1
