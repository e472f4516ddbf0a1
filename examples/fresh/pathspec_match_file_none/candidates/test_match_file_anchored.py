# A pattern with a leading slash in a nested layout.
from pathspec import PathSpec


def test_anchored_pattern_matches_in_subdirectory():
    spec = PathSpec.from_lines("gitwildmatch", ["/debug.log"])
    assert spec.match_file("debug.log") is True
    # the log file of every package should be ignored too
    assert spec.match_file("logs/debug.log") is True
    assert spec.match_file("pkg/logs/debug.log") is True
