# Issue: DirectUrl.to_dict() leaks part of a password that contains "@".
from packaging.direct_url import DirectUrl, VcsInfo, redact_auth_from_url


def test_redact_helper_handles_at_in_password():
    assert redact_auth_from_url("https://user:pa@ss@g.c/r.git") == "https://g.c/r.git"


def test_to_dict_uses_redaction():
    d = DirectUrl(url="https://user:pa@ss@g.c/r.git", vcs_info=VcsInfo(vcs="git", commit_id="a" * 40))
    assert d.to_dict()["url"] == "https://g.c/r.git"
