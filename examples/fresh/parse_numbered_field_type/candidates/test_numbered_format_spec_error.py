# Numbered fields with a type currently give a clear error message.
import pytest

import parse


def test_numbered_typed_field_reports_format_spec():
    with pytest.raises(ValueError, match="format spec ':f' not recognised"):
        parse.parse(":CURR {0:f}", ":CURR 5.13")


def test_numbered_untyped_field_still_works():
    assert parse.parse("{0} and {1}", "x and y").fixed == ("x", "y")
