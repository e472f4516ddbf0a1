"""Invalid values must raise ConfigValueError (a ConfigError) that names the setting."""
import pytest

from envconf import ConfigError, ConfigValueError, Settings


def test_get_int_typo_names_the_setting():
    settings = Settings({"APP_PORT": "80a"}, prefix="APP_")
    with pytest.raises(ConfigValueError) as excinfo:
        settings.get_int("PORT", min_value=1, max_value=65535)
    assert "APP_PORT" in str(excinfo.value)
    assert isinstance(excinfo.value, ConfigError)


@pytest.mark.parametrize("getter, raw", [("get_bool", "maybe"), ("get_float", "1.2.3")])
def test_other_getters_raise_config_value_error(getter, raw):
    settings = Settings({"APP_X": raw}, prefix="APP_")
    with pytest.raises(ConfigValueError):
        getattr(settings, getter)("X")
