import tomlkit


def test_dumped_document_can_be_parsed_again():
    doc = tomlkit.parse("temp = -12.5\noffset = +3\n")
    doc["temp"] *= -1
    doc["temp"] *= -1
    doc["offset"] -= 10

    reparsed = tomlkit.parse(tomlkit.dumps(doc))

    assert reparsed["temp"] == -12.5
    assert reparsed["offset"] == -7
