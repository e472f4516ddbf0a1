import pytest

from parse import FormatSpecError, compile


def test_numbered_typed_field_compiles():
    parser = compile("{0:f}")
    assert parser.parse("1.5")[0] == 1.5


def test_unknown_type_raises_format_spec_error():
    with pytest.raises(FormatSpecError):
        compile("{0:q}")
