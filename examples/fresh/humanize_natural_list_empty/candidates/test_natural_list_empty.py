# Reproduction: natural_list([]) raises IndexError.
# Expected: an empty string, like natural_list([""]).
from humanize import natural_list


def test_natural_list_empty_list():
    # an empty list of items renders as an empty string
    result = natural_list([])

    assert result == ""
