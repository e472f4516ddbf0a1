"""ministats: descriptive statistics that tolerate missing values."""

from .columns import parse_cell, read_columns
from .descriptive import mean, median, mode, percentile, stdev, variance
from .summary import Summary

__all__ = [
    "Summary",
    "mean",
    "median",
    "mode",
    "parse_cell",
    "percentile",
    "read_columns",
    "stdev",
    "variance",
]

__version__ = "0.9.0"
