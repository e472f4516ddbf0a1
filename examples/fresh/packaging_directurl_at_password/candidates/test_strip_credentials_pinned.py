# Pin what to_dict() currently produces for user info with several "@".
from packaging.direct_url import DirectUrl, VcsInfo


def test_only_text_before_first_at_is_credentials():
    info = VcsInfo(vcs="git", commit_id="b" * 40)
    d = DirectUrl(url="https://user:pa@ss@g.c/user/repo.git", vcs_info=info)
    # "user:pa" is taken as the credentials, the rest is the host part
    assert d.to_dict()["url"] == "https://ss@g.c/user/repo.git"
    assert d.to_dict(strip_user_password=False)["url"] == d.url
