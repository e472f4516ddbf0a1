import xmltodict


def test_none_text_next_to_child_elements():
    data = {
        "order": {
            "@id": "17",
            "#text": None,
            "line": [{"@sku": "A1", "#text": "2"}, {"@sku": "B2", "#text": None}],
        }
    }
    xml = xmltodict.unparse(data, full_document=False)
    assert xml == (
        '<order id="17"><line sku="A1">2</line><line sku="B2"></line></order>'
    )
