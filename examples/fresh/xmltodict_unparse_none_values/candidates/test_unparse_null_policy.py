from xmltodict import NoneAsEmpty, unparse


def test_none_rendered_as_empty_string():
    data = {"x": {"@pro": None, "#text": None}}
    xml = unparse(data, full_document=False, none_policy=NoneAsEmpty)
    assert xml == '<x pro=""></x>'


def test_default_none_policy():
    assert unparse({"x": {"@pro": None}}, full_document=False) == '<x pro=""></x>'
