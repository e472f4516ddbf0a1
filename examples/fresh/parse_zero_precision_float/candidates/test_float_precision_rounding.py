# Precision in a float spec when parsing.
import parse


def test_precision_rounds_parsed_value():
    # the precision of the spec should be applied to the parsed value,
    # like format(3.14159, ".2f") == "3.14"
    result = parse.parse("{:.2f}", "3.14159")
    assert result is not None
    assert result[0] == 3.14
