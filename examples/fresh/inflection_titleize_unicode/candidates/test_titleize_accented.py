# Reproduction of: titleize('Ana Índia') -> 'Ana índia'
# https://github.com/jpvanhal/inflection/issues/33
from inflection import titleize


def test_titleize_second_word_with_accent():
    # 'Ana Índia'.title() gives the right answer; titleize should agree
    result = titleize("Ana Índia")

    assert result == "Ana Índia"
