"""Reproduction: invalid values escape as bare ValueError instead of
ConfigValueError (issue: get_int raises ValueError)."""
import pytest

from envconf import ConfigValueError, Settings


def test_get_int_with_typo_raises_config_value_error():
    settings = Settings({"APP_PORT": "80a"}, prefix="APP_")
    with pytest.raises(ConfigValueError) as excinfo:
        settings.get_int("PORT", min_value=1, max_value=65535)
    assert "APP_PORT" in str(excinfo.value)


def test_get_bool_maybe_raises_config_value_error():
    settings = Settings({"APP_DEBUG": "maybe"}, prefix="APP_")
    with pytest.raises(ConfigValueError):
        settings.get_bool("DEBUG")
