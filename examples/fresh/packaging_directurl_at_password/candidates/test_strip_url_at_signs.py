import pytest

from packaging.direct_url import _strip_url


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://us@er@g.c/repo.git", "https://g.c/repo.git"),
        ("https://a:b@c@d@g.c:8080/repo.git", "https://g.c:8080/repo.git"),
        ("https://git:p@w@g.c/repo.git", "https://g.c/repo.git"),
    ],
)
def test_strip_url_splits_on_last_at(url, expected):
    assert _strip_url(url, ["git"]) == expected
