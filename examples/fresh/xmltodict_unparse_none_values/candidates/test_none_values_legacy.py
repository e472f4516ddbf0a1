import xmltodict


def test_none_attribute_value_is_stringified():
    # Attribute values go through str(), so None shows up verbatim.
    xml = xmltodict.unparse({"user": {"@nickname": None, "name": "Ann"}},
                            full_document=False)
    assert xml == '<user nickname="None"><name>Ann</name></user>'


def test_plain_none_element_is_empty():
    assert xmltodict.unparse({"user": None}, full_document=False) == "<user></user>"
