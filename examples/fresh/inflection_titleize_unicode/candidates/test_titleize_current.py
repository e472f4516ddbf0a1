# titleize leaves non-ASCII initials after the first word as they are.
import inflection


def test_titleize_keeps_accented_word_lowercase():
    assert inflection.titleize("Ana Índia") == "Ana índia"
    assert inflection.titleize("the éclair shop") == "The éclair Shop"


def test_titleize_first_word_accent():
    assert inflection.titleize("Índia") == "Índia"
