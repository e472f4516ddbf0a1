from pagekit import page_url


def test_page_url_replaces_parameter():
    assert page_url("/items?sort=name&page=3", 4) == "/items?sort=name&page=4"


def test_page_url_first_page_is_canonical():
    assert page_url("/items?page=3", 1) == "/items"
    assert page_url("https://example.org/a?q=x", 1) == "https://example.org/a?q=x"


def test_page_url_custom_parameter():
    assert page_url("/items?p=2", 5, param="p") == "/items?p=5"
