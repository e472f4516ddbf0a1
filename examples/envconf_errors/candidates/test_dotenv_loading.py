# Settings loaded from a .env file (context for the get_int issue).
from envconf import Settings


def test_settings_from_env_file(tmp_path, monkeypatch):
    monkeypatch.delenv("APP_PORT", raising=False)
    env_file = tmp_path / ".env"
    env_file.write_text("APP_PORT=8080\n# comment\nAPP_NAME=demo\n")

    settings = Settings.from_file(env_file, prefix="APP_")

    assert settings.get("PORT") == "8080"
    assert settings.get("NAME") == "demo"
    assert "PORT" in settings
