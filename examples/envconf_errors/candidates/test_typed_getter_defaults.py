# Defaults and prefix handling in Settings.get / typed getters.
import pytest

from envconf import MissingSettingError, Settings


@pytest.mark.parametrize(
    "getter, default, expected",
    [
        ("get_int", 3, 3),
        ("get_int", "12", 12),
        ("get_int", None, None),
        ("get_float", "0.5", 0.5),
        ("get_bool", "yes", True),
        ("get_duration", "250ms", 0.25),
        ("get_list", "a,b", ["a", "b"]),
    ],
)
def test_defaults_are_used_and_converted(getter, default, expected):
    settings = Settings({"OTHER_VALUE": "999"}, prefix="APP_")
    assert getattr(settings, getter)("VALUE", default=default) == expected


def test_get_raw_value_and_missing_key():
    settings = Settings({"APP_VALUE": "x", "VALUE": "y"}, prefix="APP_")
    assert settings.get("VALUE") == "x"
    assert settings.get("MISSING", default=None) is None
    with pytest.raises(MissingSettingError, match="APP_MISSING"):
        settings.get("MISSING")
