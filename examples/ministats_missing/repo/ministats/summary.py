"""One-call summaries of a column."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable, Optional

from .descriptive import Number, _clean, mean, median, percentile, stdev


@dataclass(frozen=True)
class Summary:
    """Summary statistics of one column.

    ``count`` is the number of non-missing values and ``missing`` the number
    of missing ones.  The other fields are ``None`` for an empty column.
    """

    count: int
    missing: int
    mean: Optional[float]
    stdev: Optional[float]
    min: Optional[Number]
    q1: Optional[float]
    median: Optional[Number]
    q3: Optional[float]
    max: Optional[Number]

    @classmethod
    def from_values(cls, values: Iterable[Optional[Number]]) -> "Summary":
        """Compute a :class:`Summary` of *values* (``None`` = missing)."""
        values = list(values)
        data = _clean(values)
        return cls(
            count=len(data),
            missing=len(values) - len(data),
            mean=mean(data),
            stdev=stdev(data),
            min=min(data) if data else None,
            q1=percentile(data, 25),
            median=median(values),
            q3=percentile(data, 75),
            max=max(data) if data else None,
        )

    def as_dict(self) -> dict:
        return asdict(self)

    def format(self, precision: int = 2) -> str:
        """Render the summary as an aligned two-column table."""
        rows = []
        for name, value in self.as_dict().items():
            if value is None:
                text = "-"
            elif isinstance(value, float):
                text = f"{value:.{precision}f}"
            else:
                text = str(value)
            rows.append((name, text))
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {text:>10}" for name, text in rows)
