# DirectUrl.to_dict(): credential stripping for ordinary URLs.
from packaging.direct_url import DirectUrl, VcsInfo


def make(url):
    return DirectUrl(url=url, vcs_info=VcsInfo(vcs="git", commit_id="a" * 40))


def test_user_and_password_are_removed():
    assert make("https://user:pass@g.c/user/repo.git").to_dict()["url"] == "https://g.c/user/repo.git"


def test_safe_git_user_is_kept():
    assert make("ssh://git@g.c/user/repo.git").to_dict()["url"] == "ssh://git@g.c/user/repo.git"


def test_env_var_placeholders_are_kept():
    url = "https://${USER}:${TOKEN}@g.c/user/repo.git"
    assert make(url).to_dict()["url"] == url


def test_no_stripping_when_disabled():
    url = "https://user:pass@g.c/user/repo.git"
    assert make(url).to_dict(strip_user_password=False)["url"] == url
