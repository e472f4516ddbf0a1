import pytest

from inflection import titleize


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ana índia", "Ana Índia"),
        ("café élan", "Café Élan"),
        ("paris über alles", "Paris Über Alles"),
        ("the_éclair_shop", "The Éclair Shop"),
    ],
)
def test_titleize_non_ascii_initials(text, expected):
    result = titleize(text)
    assert result == expected, result
