# Test for the issue: get_int raises ValueError instead of ConfigValueError
import pytest

from envconf.exceptions import ConfigError, ConfigValueError
from envconf.settings import Settings


def test_invalid_int_is_config_error():
    settings = Settings({"APP_PORT": "80a"}, prefix="APP_")
    with pytest.raises(ConfigValueError):
        settings.get_int("PORT")


def test_config_value_error_is_config_error():
    assert issubclass(ConfigValueError, ConfigError)
