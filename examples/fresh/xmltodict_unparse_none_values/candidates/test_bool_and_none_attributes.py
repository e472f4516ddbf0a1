import pytest
import xmltodict


@pytest.mark.parametrize(
    "data, expected",
    [
        ({"x": {"@pro": None}}, '<x pro=""></x>'),
        ({"x": {"@pro": None, "#text": None}}, '<x pro=""></x>'),
        ({"x": {"@n": 5, "#text": 7}}, '<x n="5">7</x>'),
        ({"x": {"@flag": True, "#text": "on"}}, '<x flag="true">on</x>'),
        ({"x": {"@flag": False, "#text": False}}, '<x flag="false">false</x>'),
        ({"x": {"@s": "", "#text": ""}}, '<x s=""></x>'),
    ],
)
def test_scalar_attribute_and_text_serialization(data, expected):
    # None should be empty, booleans lowercase, like plain element values
    assert xmltodict.unparse(data, full_document=False) == expected
