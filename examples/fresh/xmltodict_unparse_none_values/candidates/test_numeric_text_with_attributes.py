import pytest
import xmltodict


@pytest.mark.parametrize(
    "text, rendered",
    [(1, "1"), (2.5, "2.5"), (True, "true"), (False, "false"), ("abc", "abc")],
)
def test_non_string_text_next_to_attribute(text, rendered):
    xml = xmltodict.unparse({"v": {"@unit": "kg", "#text": text}}, full_document=False)
    assert xml == f'<v unit="kg">{rendered}</v>'


def test_plain_none_is_empty_element():
    assert xmltodict.unparse({"v": None}, full_document=False) == "<v></v>"
    assert xmltodict.unparse({"v": None}, short_empty_elements=True,
                             full_document=False) == "<v/>"
