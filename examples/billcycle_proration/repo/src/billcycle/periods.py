"""Monthly billing periods.

A subscription is billed every month on its *anchor* day.  When a month is
too short for the anchor day (an anchor on the 31st in April), the period
starts on the last day of that month instead.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date


def add_months(day: date, months: int, anchor_day: int | None = None) -> date:
    """Return *day* moved by *months*, clamping to the end of short months.

    *anchor_day* is the preferred day of the month (defaults to ``day.day``);
    it lets a period anchored on the 31st come back to the 31st after
    passing through a shorter month.
    """
    anchor_day = anchor_day or day.day
    month_index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(month_index, 12)
    last_day = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(anchor_day, last_day))


@dataclass(frozen=True)
class BillingPeriod:
    """A half-open range of days ``[start, end)`` covered by one charge."""

    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end <= self.start:
            raise ValueError("a billing period must end after it starts")

    @property
    def length_days(self) -> int:
        """Number of billed days in the period."""
        return (self.end - self.start).days

    def contains(self, day: date) -> bool:
        return self.start <= day < self.end

    def days_used(self, on: date) -> int:
        """Days of the period before *on*, clamped to ``[0, length_days]``."""
        return self.length_days - self.days_remaining(on)

    def days_remaining(self, on: date) -> int:
        """Days from *on* (inclusive) to the end of the period.

        Clamped to ``[0, length_days]`` so dates outside the period are safe.
        """
        if on <= self.start:
            return self.length_days
        if on >= self.end:
            return 0
        return (self.end - on).days

    def next(self, anchor_day: int | None = None) -> "BillingPeriod":
        """The period that immediately follows this one."""
        anchor_day = anchor_day or self.start.day
        return BillingPeriod(self.end, add_months(self.end, 1, anchor_day))


def period_containing(anchor: date, on: date) -> BillingPeriod:
    """Return the monthly period, anchored on *anchor*, that contains *on*.

    :raises ValueError: if *on* is before the anchor date.
    """
    if on < anchor:
        raise ValueError("date is before the start of the subscription")
    months = (on.year - anchor.year) * 12 + (on.month - anchor.month)
    start = add_months(anchor, months, anchor.day)
    if start > on:
        start = add_months(anchor, months - 1, anchor.day)
    return BillingPeriod(start, add_months(start, 1, anchor.day))
