# Floats with an explicit precision, which already round-trip today.
import parse


def test_fixed_point_with_decimals():
    assert parse.parse("{:.2f}", format(3.14159, ".2f"))[0] == 3.14
    assert parse.parse("t={:.1f}s", "t=20.5s")[0] == 20.5


def test_plain_f_requires_decimal_point():
    assert parse.parse("{:f}", "20") is None
    assert parse.parse("{:f}", "20.0")[0] == 20.0


def test_zero_padded_int():
    assert parse.parse("foo_{:02d}t", "foo_20t")[0] == 20
