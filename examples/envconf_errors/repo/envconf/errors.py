"""Exception hierarchy.  Catch :class:`ConfigError` to handle them all."""


class ConfigError(Exception):
    """Base class for all configuration errors."""


class MissingSettingError(ConfigError, KeyError):
    """A required setting is not set."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

    def __str__(self) -> str:
        return f"{self.key} is not set"


class ConfigValueError(ConfigError, ValueError):
    """A setting is set but its value is invalid for the requested type."""

    def __init__(self, key: str, value: str, expected: str) -> None:
        super().__init__(key, value, expected)
        self.key = key
        self.value = value
        self.expected = expected

    def __str__(self) -> str:
        return f"{self.key}: expected {self.expected}, got {self.value!r}"
