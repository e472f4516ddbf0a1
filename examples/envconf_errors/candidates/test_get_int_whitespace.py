# Issue: get_int should report malformed values as ConfigValueError.
import pytest

from envconf import ConfigValueError, Settings


@pytest.mark.parametrize("raw", [" 8080 ", "8080\n", "\t8080"])
def test_get_int_rejects_padded_values(raw):
    # Values with surrounding whitespace are malformed and must be rejected
    # with a ConfigValueError naming the setting.
    settings = Settings({"APP_PORT": raw}, prefix="APP_")
    with pytest.raises(ConfigValueError, match="APP_PORT"):
        settings.get_int("PORT")
