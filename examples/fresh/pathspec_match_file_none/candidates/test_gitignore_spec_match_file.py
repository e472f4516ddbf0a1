# match_file() on a GitIgnoreSpec built from a typical .gitignore.
import pytest
from pathspec import GitIgnoreSpec

GITIGNORE = ["*.pyc", "__pycache__/", "build/", "!build/keep.txt", "*.log", "!important.log"]


@pytest.mark.parametrize(
    "path, expected",
    [
        ("module.pyc", True),
        ("pkg/__pycache__/mod.cpython-311.pyc", True),
        ("build/lib/x.so", True),
        ("important.log", False),
        ("README.md", False),
        ("src/app.py", False),
        ("build", True),
    ],
)
def test_gitignore_match_file(path, expected):
    spec = GitIgnoreSpec.from_lines(GITIGNORE)
    assert spec.match_file(path) is expected
