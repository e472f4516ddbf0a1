import pytest

from envconf import ConfigError, Settings


def test_invalid_int_is_caught_as_config_error():
    settings = Settings({"APP_PORT": "80a"}, prefix="APP_")
    with pytest.raises(ConfigError):
        settings.get_int("PORT")
