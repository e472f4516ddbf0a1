import os

from dotenv import load_dotenv


def test_load_dotenv_sets_empty_string(tmp_path, monkeypatch):
    monkeypatch.delenv("API_TOKEN", raising=False)
    monkeypatch.delenv("API_URL", raising=False)
    env = tmp_path / ".env"
    env.write_text("API_URL=https://example.com # prod\nAPI_TOKEN= # fill me in\n")

    assert load_dotenv(env, override=True)

    assert os.environ["API_URL"] == "https://example.com"
    assert os.environ["API_TOKEN"] == ""
    assert not os.environ["API_TOKEN"]
