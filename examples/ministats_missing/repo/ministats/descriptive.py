"""Descriptive statistics over iterables that may contain missing values.

Missing values are ``None``.  Every function in this module ignores them and
returns ``None`` when nothing is left to compute on, mirroring how
spreadsheets treat blank cells.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Iterable, List, Optional, Union

Number = Union[int, float]


def _clean(values: Iterable[Optional[Number]]) -> List[Number]:
    """Return the non-missing values of *values* as a list.

    ``None`` and float NaN both count as missing.
    """
    return [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def mean(values: Iterable[Optional[Number]]) -> Optional[float]:
    """Arithmetic mean of the non-missing values."""
    data = _clean(values)
    if not data:
        return None
    return math.fsum(data) / len(data)


def median(values: Iterable[Optional[Number]]) -> Optional[Number]:
    """Middle value of the non-missing values.

    For an even number of values the mean of the two middle values is
    returned.
    """
    data = sorted(values)
    n = len(data)
    mid = n // 2
    if n % 2 == 1:
        return data[mid]
    return (data[mid - 1] + data[mid]) / 2


def mode(values: Iterable[Optional[Number]]) -> Optional[Number]:
    """Most common non-missing value; ties go to the value seen first."""
    data = _clean(values)
    if not data:
        return None
    counts = Counter(data)
    best = max(counts.values())
    return next(v for v in data if counts[v] == best)


def variance(values: Iterable[Optional[Number]], sample: bool = True) -> Optional[float]:
    """Variance of the non-missing values.

    With ``sample=True`` (the default) the unbiased sample variance is
    returned, which needs at least two values.
    """
    data = _clean(values)
    n = len(data)
    if n == 0 or (sample and n < 2):
        return None
    mu = math.fsum(data) / n
    ss = math.fsum((x - mu) ** 2 for x in data)
    return ss / (n - 1 if sample else n)


def stdev(values: Iterable[Optional[Number]], sample: bool = True) -> Optional[float]:
    """Standard deviation of the non-missing values."""
    var = variance(values, sample=sample)
    return None if var is None else math.sqrt(var)


def percentile(values: Iterable[Optional[Number]], q: float) -> Optional[float]:
    """The *q*-th percentile (0-100) using linear interpolation.

    Matches the default ("linear") method of NumPy and spreadsheets'
    ``PERCENTILE.INC``.
    """
    if not 0 <= q <= 100:
        raise ValueError("q must be between 0 and 100")
    data = sorted(_clean(values))
    if not data:
        return None
    pos = (len(data) - 1) * q / 100
    lower = math.floor(pos)
    upper = min(lower + 1, len(data) - 1)
    frac = pos - lower
    return data[lower] + (data[upper] - data[lower]) * frac
