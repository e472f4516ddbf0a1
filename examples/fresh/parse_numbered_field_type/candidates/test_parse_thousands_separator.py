# Issue: format specs that str.format accepts are rejected by parse.
import parse


def test_thousands_separator_spec():
    # "{:,d}".format(1234) == "1,234"
    text = "Total: {:,d}".format(1234)
    result = parse.parse("Total: {:,d}", text)
    assert result is not None
    assert result[0] == 1234
