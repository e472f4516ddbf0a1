import os

from dotenv import load_dotenv


def test_load_dotenv_keeps_value_with_double_space(tmp_path, monkeypatch):
    monkeypatch.delenv("GREETING", raising=False)
    monkeypatch.delenv("NAME", raising=False)
    env = tmp_path / ".env"
    env.write_text("GREETING=hello  world\nNAME=app\n")

    load_dotenv(str(env), override=True)

    assert os.environ.get("NAME") == "app"
    assert os.environ.get("GREETING") == "hello  world"
