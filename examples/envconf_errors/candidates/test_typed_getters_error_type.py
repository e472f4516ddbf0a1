"""Issue: Settings getters must raise ConfigError subclasses for invalid values,
so that `except ConfigError` catches configuration typos."""
import pytest

from envconf import ConfigError, ConfigValueError, Settings


@pytest.mark.parametrize("getter, raw", [("get_int", "80a"), ("get_float", "fast"),
                                         ("get_duration", "10 parsecs")])
def test_invalid_value_is_a_config_error(getter, raw):
    settings = Settings({"APP_VALUE": raw}, prefix="APP_")
    with pytest.raises(Exception) as excinfo:
        getattr(settings, getter)("VALUE")
    # Must be catchable with `except ConfigError`
    assert isinstance(excinfo.value, ConfigError), type(excinfo.value)
    assert isinstance(excinfo.value, ConfigValueError)
    assert excinfo.value.key == "APP_VALUE"
