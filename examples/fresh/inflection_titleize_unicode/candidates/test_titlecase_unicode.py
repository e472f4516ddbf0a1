# Issue #33: titleize should capitalize words starting with accented letters.
from inflection import titlecase, titleize


def test_titlecase_accents():
    assert titlecase("ana índia") == "Ana Índia"


def test_titleize_accents():
    assert titleize("ana índia") == "Ana Índia"
