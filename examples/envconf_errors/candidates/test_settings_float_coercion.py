# Issue reproduction around numeric conversion in Settings.
from envconf import Settings


def test_get_float_accepts_decimal_comma():
    # European-style decimal separators are common in .env files
    settings = Settings({"APP_RATIO": "1,5"}, prefix="APP_")
    assert settings.get_float("RATIO") == 1.5


def test_get_float_plain():
    settings = Settings({"APP_RATIO": "0.25"}, prefix="APP_")
    assert settings.get_float("RATIO") == 0.25
