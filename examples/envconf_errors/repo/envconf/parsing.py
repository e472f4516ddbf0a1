"""Converters from setting strings to Python values.

Each converter raises :class:`ValueError` for text it cannot interpret;
:class:`~envconf.settings.Settings` turns that into a
:class:`~envconf.errors.ConfigValueError` naming the setting.
"""

from __future__ import annotations

import re
from typing import List

TRUE_WORDS = frozenset({"1", "true", "yes", "on", "y", "t"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", "n", "f", ""})

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_bool(text: str) -> bool:
    """Interpret common spellings of true/false (case-insensitive)."""
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"not a boolean: {text!r}")


def parse_list(text: str, separator: str = ",") -> List[str]:
    """Split *text* on *separator*, stripping blanks and dropping empty items."""
    return [item.strip() for item in text.split(separator) if item.strip()]


def parse_duration(text: str) -> float:
    """Parse durations such as ``"90"``, ``"1h30m"`` or ``"250ms"`` to seconds.

    A bare number is a number of seconds.
    """
    text = text.strip().lower().replace(" ", "")
    if not text:
        raise ValueError("empty duration")
    try:
        return float(text)
    except ValueError:
        pass
    pos = 0
    total = 0.0
    for match in _DURATION_PART.finditer(text):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        pos = match.end()
    if pos != len(text):
        raise ValueError(f"not a duration: {text!r}")
    return total
