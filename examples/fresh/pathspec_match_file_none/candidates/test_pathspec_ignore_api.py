# Matching single files with the gitwildmatch spec helpers.
from pathspec import GitWildMatchSpec, PathSpec


def test_spec_from_lines_matches_single_file():
    spec = GitWildMatchSpec.from_lines(["*.egg-info/", "*.pyc"])
    assert spec.match_file("pkg.egg-info/PKG-INFO") is True
    assert spec.match_file("setup.py") is False


def test_pathspec_unmatched():
    spec = PathSpec.from_lines("gitwildmatch", ["*.pyc"])
    assert spec.match_file("setup.py") is False
