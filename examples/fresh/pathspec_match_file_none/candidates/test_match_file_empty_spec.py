import unittest

import pathspec


class EmptySpecMatchTest(unittest.TestCase):

    def test_no_patterns_matches_nothing(self):
        spec = pathspec.PathSpec.from_lines("gitwildmatch", [])
        for path in ("a.txt", "dir/b.py", ".hidden"):
            with self.subTest(path=path):
                self.assertEqual(spec.match_file(path), False)

    def test_comment_only_spec(self):
        spec = pathspec.PathSpec.from_lines("gitwildmatch", ["# just a comment", ""])
        self.assertFalse(spec.match_file("x.cfg"))
