"""Reading columns of numbers from CSV text."""

from __future__ import annotations

import csv
from typing import Dict, Iterable, List, Optional, Union

Cell = Optional[Union[int, float, str]]

#: Cell contents that are treated as missing values.
MISSING_MARKERS = frozenset({"", "na", "n/a", "nan", "null", "none", "-"})


def parse_cell(text: str) -> Cell:
    """Convert a CSV cell to ``int``, ``float``, ``None`` (missing) or ``str``."""
    stripped = text.strip()
    if stripped.lower() in MISSING_MARKERS:
        return None
    for convert in (int, float):
        try:
            return convert(stripped)
        except ValueError:
            pass
    return stripped


def read_columns(lines: Iterable[str], delimiter: str = ",") -> Dict[str, List[Cell]]:
    """Read CSV *lines* with a header row into a dict of columns.

    Short rows are padded with missing values so that every column has the
    same length.
    """
    reader = csv.reader(lines, delimiter=delimiter)
    try:
        header = [name.strip() for name in next(reader)]
    except StopIteration:
        return {}
    columns: Dict[str, List[Cell]] = {name: [] for name in header}
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        for i, name in enumerate(header):
            columns[name].append(parse_cell(row[i]) if i < len(row) else None)
    return columns
