# titleize on movie titles with punctuation
from inflection import titleize


def test_titleize_keeps_hyphenated_words():
    assert titleize("x-men: the last stand") == "X-Men: The Last Stand"


def test_titleize_colon():
    assert titleize("alien: resurrection") == "Alien: Resurrection"
