# match_file() is documented to return a bool for every input path.
import pathlib

import pytest
from pathspec import GitIgnoreSpec, PathSpec


@pytest.mark.parametrize("spec_cls", [PathSpec, GitIgnoreSpec])
@pytest.mark.parametrize("path", ["notes.md", pathlib.Path("src/app.py"), "dist/pkg.whl", "data/raw.csv"])
def test_match_file_returns_bool(spec_cls, path):
    if spec_cls is PathSpec:
        spec = PathSpec.from_lines("gitwildmatch", ["dist/", "*.csv", "!data/raw.csv"])
    else:
        spec = GitIgnoreSpec.from_lines(["dist/", "*.csv", "!data/raw.csv"])
    assert isinstance(spec.match_file(path), bool)
