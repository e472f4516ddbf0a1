import io

from dotenv import dotenv_values


def test_values_include_existing_environment(monkeypatch):
    monkeypatch.setenv("HOME_DIR", "/home/app")
    values = dotenv_values(stream=io.StringIO("A=1 2\n"))
    assert values["A"] == "1 2"
    assert values["HOME_DIR"] == "/home/app"
