# Every word of a titleized phrase should start with an uppercase letter,
# whatever its first letter is.
import inflection


def test_each_word_capitalized():
    phrase = "the éclair shop of ana índia"
    words = inflection.titleize(phrase).split()
    assert len(words) == 6
    for word in words:
        assert word[0].isupper(), words
