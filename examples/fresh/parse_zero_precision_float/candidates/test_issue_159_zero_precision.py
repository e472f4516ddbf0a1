# Issue: "Floating point with zero digits after the comma"
# parse("foo_{:02.0f}t", "foo_20t") should mirror format(20.0, "02.0f") == "20".
import parse



def test_zero_digits_after_the_comma():
    # the int version works: parse("foo_{:02d}t", "foo_20t") -> 20
    assert format(20.0, "02.0f") == "20"
    assert parse.parse("foo_{:02.0f}t", "foo_20t")[0] == 20.0
