"""A small, dependency-free ``.env`` file parser."""

from __future__ import annotations

import re
from typing import Dict, Iterable

_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$")


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        if value[0] == '"':
            inner = inner.replace("\\n", "\n").replace('\\"', '"')
        return inner
    # strip trailing comments from unquoted values: KEY=value  # comment
    return re.split(r"\s+#", value, maxsplit=1)[0]


def parse_dotenv(lines: Iterable[str]) -> Dict[str, str]:
    """Parse ``KEY=value`` lines; blank lines and ``#`` comments are skipped.

    Later assignments override earlier ones.  Malformed lines raise
    :class:`ValueError` with the line number.
    """
    result: Dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _LINE.match(line)
        if not match:
            raise ValueError(f"line {number}: expected KEY=value, got {stripped!r}")
        key, value = match.groups()
        result[key] = _unquote(value)
    return result
