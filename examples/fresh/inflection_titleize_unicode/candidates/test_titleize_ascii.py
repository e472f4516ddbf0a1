import inflection


def test_titleize_plain_ascii_sentences():
    assert inflection.titleize("man from the boondocks") == "Man From The Boondocks"
    assert inflection.titleize("TheManWithoutAPast") == "The Man Without A Past"
    assert inflection.titleize("ana india") == "Ana India"


def test_titleize_accent_on_first_word():
    assert inflection.titleize("Índia") == "Índia"
    assert inflection.titleize("élan vital") == "Élan Vital"
    assert inflection.titleize("über_cool") == "Über Cool"
