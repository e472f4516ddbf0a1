# check_file()/match_files() results for included, excluded and unmatched paths.
from pathspec import PathSpec


def make_spec():
    return PathSpec.from_lines("gitwildmatch", ["*.log", "!keep.log", "tmp/"])


def test_check_file_reports_pattern_index():
    spec = make_spec()
    assert spec.check_file("debug.log").include is True
    assert spec.check_file("keep.log").include is False
    assert spec.check_file("keep.log").index == 1
    assert spec.check_file("tmp/cache.bin").index == 2


def test_match_files_filters_and_unmatched_is_falsy():
    spec = make_spec()
    files = ["a.log", "keep.log", "src/main.py", "tmp/x"]
    assert sorted(spec.match_files(files)) == ["a.log", "tmp/x"]
    assert not spec.match_file("src/main.py")
