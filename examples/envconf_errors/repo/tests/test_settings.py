import pytest

from envconf import ConfigError, ConfigValueError, MissingSettingError, Settings


@pytest.fixture
def settings():
    return Settings(
        {
            "APP_PORT": "8080",
            "APP_DEBUG": "yes",
            "APP_RATIO": "0.75",
            "APP_HOSTS": "a.example, b.example,,",
            "APP_TIMEOUT": "1m30s",
            "OTHER": "x",
        },
        prefix="APP_",
    )


def test_get_uses_prefix(settings):
    assert settings.get("PORT") == "8080"
    assert "PORT" in settings
    assert "OTHER" not in settings


def test_missing_setting(settings):
    with pytest.raises(MissingSettingError) as excinfo:
        settings.get_int("WORKERS")
    assert isinstance(excinfo.value, KeyError)
    assert isinstance(excinfo.value, ConfigError)
    assert str(excinfo.value) == "APP_WORKERS is not set"


def test_typed_getters(settings):
    assert settings.get_int("PORT") == 8080
    assert settings.get_bool("DEBUG") is True
    assert settings.get_float("RATIO") == 0.75
    assert settings.get_list("HOSTS") == ["a.example", "b.example"]
    assert settings.get_duration("TIMEOUT") == 90


def test_defaults(settings):
    assert settings.get_int("WORKERS", default=4) == 4
    assert settings.get_int("WORKERS", default=None) is None
    assert settings.get_duration("GRACE", default="2s") == 2
    assert settings.get_bool("VERBOSE", default=False) is False


def test_int_range_is_checked(settings):
    assert settings.get_int("PORT", min_value=1, max_value=65535) == 8080
    with pytest.raises(ConfigValueError) as excinfo:
        settings.get_int("PORT", max_value=1024)
    assert str(excinfo.value) == "APP_PORT: expected an integer <= 1024, got '8080'"


def test_from_file(tmp_path, monkeypatch):
    env_file = tmp_path / ".env"
    env_file.write_text("APP_PORT=9000\nAPP_NAME='demo'\n")
    monkeypatch.setenv("APP_PORT", "7000")
    assert Settings.from_file(env_file, prefix="APP_").get_int("PORT") == 7000
    assert Settings.from_file(env_file, prefix="APP_", override_env=True).get_int("PORT") == 9000
    assert Settings.from_file(env_file, prefix="APP_").get("NAME") == "demo"
