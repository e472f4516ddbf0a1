"""envconf: typed settings from environment variables and .env files."""

from .dotenv import parse_dotenv
from .errors import ConfigError, ConfigValueError, MissingSettingError
from .parsing import parse_bool, parse_duration, parse_list
from .settings import Settings

__all__ = [
    "ConfigError",
    "ConfigValueError",
    "MissingSettingError",
    "Settings",
    "parse_bool",
    "parse_dotenv",
    "parse_duration",
    "parse_list",
]

__version__ = "2.0.3"
