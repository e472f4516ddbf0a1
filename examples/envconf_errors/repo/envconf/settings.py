"""The :class:`Settings` accessor."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, List, Mapping, Optional, TypeVar, Union

from .dotenv import parse_dotenv
from .errors import ConfigValueError, MissingSettingError
from .parsing import parse_bool, parse_duration, parse_list

T = TypeVar("T")

_MISSING: Any = object()


class Settings:
    """Typed, read-only access to a mapping of string settings.

    :param values: the raw settings, e.g. ``os.environ``.
    :param prefix: prepended to every key that is looked up, so that
        ``Settings(os.environ, prefix="APP_").get("PORT")`` reads ``APP_PORT``.
    """

    def __init__(self, values: Optional[Mapping[str, str]] = None, prefix: str = "") -> None:
        self._values = dict(values or {})
        self.prefix = prefix

    @classmethod
    def from_env(cls, prefix: str = "") -> "Settings":
        """Settings backed by a snapshot of ``os.environ``."""
        return cls(os.environ, prefix=prefix)

    @classmethod
    def from_file(cls, path: Union[str, Path], prefix: str = "", override_env: bool = False) -> "Settings":
        """Settings from a ``.env`` file, with the environment taking precedence
        unless *override_env* is true."""
        with open(path, encoding="utf-8") as fh:
            values = parse_dotenv(fh)
        if override_env:
            merged = {**os.environ, **values}
        else:
            merged = {**values, **os.environ}
        return cls(merged, prefix=prefix)

    def __contains__(self, key: str) -> bool:
        return self.prefix + key in self._values

    def __repr__(self) -> str:
        return f"Settings(prefix={self.prefix!r}, keys={len(self._values)})"

    def get(self, key: str, default: Any = _MISSING) -> Any:
        """Return the raw string value of *key*.

        :raises MissingSettingError: if *key* is not set and no *default*
            is given.  A default is returned as is, without conversion.
        """
        full_key = self.prefix + key
        if full_key in self._values:
            return self._values[full_key]
        if default is _MISSING:
            raise MissingSettingError(full_key)
        return default

    def _coerce(self, key: str, converter: Callable[[str], T], expected: str, default: Any) -> T:
        """Look up *key* and convert its value with *converter*.

        String defaults are converted like real values (``"30s"`` gives
        ``30.0`` for a duration); other defaults such as ``None`` are returned
        unchanged.  A value the converter rejects is reported as
        :class:`ConfigValueError` naming the full key, so that every error
        raised by :class:`Settings` is a :class:`ConfigError`.
        """
        raw = self.get(key, default)
        if not isinstance(raw, str):
            return raw
        try:
            return converter(raw)
        except TypeError as exc:
            raise ConfigValueError(self.prefix + key, raw, expected) from exc

    def get_str(self, key: str, default: Any = _MISSING) -> str:
        return self._coerce(key, str, "a string", default)

    def get_int(
        self,
        key: str,
        default: Any = _MISSING,
        *,
        min_value: Optional[int] = None,
        max_value: Optional[int] = None,
    ) -> int:
        """Return *key* as an int, optionally checking an inclusive range."""
        value = self._coerce(key, int, "an integer", default)
        if value is None:
            return value
        if min_value is not None and value < min_value:
            raise ConfigValueError(self.prefix + key, str(value), f"an integer >= {min_value}")
        if max_value is not None and value > max_value:
            raise ConfigValueError(self.prefix + key, str(value), f"an integer <= {max_value}")
        return value

    def get_float(self, key: str, default: Any = _MISSING) -> float:
        return self._coerce(key, float, "a number", default)

    def get_bool(self, key: str, default: Any = _MISSING) -> bool:
        return self._coerce(key, parse_bool, "a boolean", default)

    def get_list(self, key: str, default: Any = _MISSING, separator: str = ",") -> List[str]:
        return self._coerce(key, lambda s: parse_list(s, separator), "a list", default)

    def get_duration(self, key: str, default: Any = _MISSING) -> float:
        """Return *key* as a number of seconds (see :func:`parse_duration`)."""
        return self._coerce(key, parse_duration, "a duration", default)
