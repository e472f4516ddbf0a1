# The items of a natural list are separated by commas.
from humanize import natural_list


def test_items_are_comma_separated():
    parts = natural_list(["x", "y", "z"]).split(", ")
    assert parts[0] == "x"
    # the last item is preceded by the conjunction
    assert parts[2].endswith("z")
    assert len(parts) == 3
