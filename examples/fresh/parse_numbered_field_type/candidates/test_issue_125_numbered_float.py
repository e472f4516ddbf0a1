# Reproduction for "Format types are not recognized if using field numbering"
import parse


def test_curr_numbered_float():
    pattern = ":CURR {0:f}"
    msg = ":CURR 5.13"
    # same message parsed with an anonymous field works: parse(":CURR {:f}", msg)
    result = parse.parse(pattern, msg)
    assert result[0] == 5.13
