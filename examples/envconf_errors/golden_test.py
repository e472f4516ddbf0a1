import pytest

from envconf import ConfigError, ConfigValueError, Settings


@pytest.mark.parametrize(
    "getter, raw, expected",
    [
        ("get_int", "80a", "an integer"),
        ("get_float", "fast", "a number"),
        ("get_bool", "maybe", "a boolean"),
        ("get_duration", "10 parsecs", "a duration"),
    ],
)
def test_invalid_value_raises_config_value_error(getter, raw, expected):
    settings = Settings({"APP_VALUE": raw}, prefix="APP_")
    with pytest.raises(ConfigValueError) as excinfo:
        getattr(settings, getter)("VALUE")
    assert isinstance(excinfo.value, ConfigError)
    assert excinfo.value.key == "APP_VALUE"
    assert str(excinfo.value) == f"APP_VALUE: expected {expected}, got {raw!r}"
