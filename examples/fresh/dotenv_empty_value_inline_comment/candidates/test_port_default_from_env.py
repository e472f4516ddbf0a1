# An unset port in the .env template should fall back to the default.
import io

from dotenv import dotenv_values


def read_port(text, default=8000):
    values = dotenv_values(stream=io.StringIO(text))
    return int(values.get("PORT") or default)


def test_empty_port_with_comment_uses_default():
    assert read_port("HOST=localhost\nPORT= # defaults to 8000\n") == 8000


def test_explicit_port():
    assert read_port("PORT=5000 # dev\n") == 5000
