# safe_user_passwords controls which user info is kept in to_dict().
from packaging.direct_url import DirectUrl, VcsInfo


def test_git_user_is_never_stripped():
    info = VcsInfo(vcs="git", commit_id="a" * 40)
    d = DirectUrl(url="ssh://git@g.c/user/repo.git", vcs_info=info)
    # "git@" is a conventional ssh user, not a credential
    assert d.to_dict()["url"] == "ssh://git@g.c/user/repo.git"
    assert d.to_dict(safe_user_passwords=())["url"] == "ssh://git@g.c/user/repo.git"
