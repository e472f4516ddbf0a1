# Reproduction: fractional(-1.3) returns '-1 -3/10' (two minus signs).
# Reported for humanize 4.15.0.
import humanize


def test_fractional_negative_mixed_number():
    # -1.3 is "minus one and three tenths": the sign is written once
    result = humanize.fractional(-1.3)

    assert result == "-1 3/10"
