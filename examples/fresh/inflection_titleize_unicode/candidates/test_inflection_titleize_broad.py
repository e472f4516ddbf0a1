# titleize(): underscores, CamelCase, apostrophes, accents and digits
import pytest

import inflection


@pytest.mark.parametrize(
    "word, expected",
    [
        ("active_record", "Active Record"),
        ("ActiveRecord", "Active Record"),
        ("david's code", "David's Code"),
        ("raiders_of_the_lost_ark", "Raiders Of The Lost Ark"),
        ("ana índia", "Ana Índia"),
        ("1st place", "1st Place"),
    ],
)
def test_titleize_cases(word, expected):
    assert inflection.titleize(word) == expected
