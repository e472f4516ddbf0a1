# Typed getters: valid conversions, ranges and rejection of bad values.
import pytest

from envconf import ConfigValueError, MissingSettingError, Settings

VALUES = {"P_INT": "42", "P_NEG": "-7", "P_BIG": "70000", "P_BAD": "80a",
          "P_FLOAT": "2.5", "P_ON": "on", "P_OFF": "0", "P_DUR": "1h30m"}


@pytest.fixture
def settings():
    return Settings(VALUES, prefix="P_")


def test_valid_conversions(settings):
    assert settings.get_int("INT") == 42
    assert settings.get_int("NEG") == -7
    assert settings.get_int("INT", min_value=42, max_value=42) == 42
    assert settings.get_float("FLOAT") == 2.5
    assert (settings.get_bool("ON"), settings.get_bool("OFF")) == (True, False)
    assert settings.get_duration("DUR") == 5400
    assert settings.get_str("BAD") == "80a"


@pytest.mark.parametrize("kwargs", [{"max_value": 65535}, {"min_value": 70001}])
def test_out_of_range(settings, kwargs):
    with pytest.raises(ConfigValueError, match="P_BIG"):
        settings.get_int("BIG", **kwargs)


def test_bad_and_missing_values(settings):
    # ConfigValueError is also a ValueError, so this holds either way
    with pytest.raises(ValueError):
        settings.get_int("BAD")
    with pytest.raises(KeyError):
        settings.get_int("NOPE")
    with pytest.raises(MissingSettingError):
        settings.get_bool("NOPE")
