# match_file() distinguishes "excluded by a negation" (False) from
# "no pattern matched at all" (None), like check_file().include does.
from pathspec import PathSpec


def test_unmatched_vs_negated():
    spec = PathSpec.from_lines("gitwildmatch", ["*.tmp", "!keep.tmp"])
    assert spec.match_file("scratch.tmp") is True
    assert spec.match_file("keep.tmp") is False
    assert spec.match_file("README.md") is None
    assert spec.check_file("README.md").include is None
