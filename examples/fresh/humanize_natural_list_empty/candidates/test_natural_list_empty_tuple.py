import pytest

import humanize


@pytest.mark.parametrize("empty", [[], ()])
def test_empty_sequences_render_as_empty_string(empty):
    result = humanize.natural_list(empty)
    assert result == ""
    assert isinstance(result, str)
