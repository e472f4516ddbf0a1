# Issue: PathSpec.match_file() returns None since 0.12.0
from pathspec import PathSpec


def test_unmatched_file_is_false_not_none():
    spec = PathSpec.from_lines("gitwildmatch", ["*.yaml.bak", "vendor/"])
    result = spec.match_file("test.yaml")
    assert result is not None
    assert result is False
    assert spec.match_file("vendor/lib.yaml") is True
