# Reproduction: a password containing "@" is only partly removed by to_dict().
from packaging.direct_url import DirectUrl, VcsInfo


def test_password_containing_at_is_fully_stripped():
    info = VcsInfo(vcs="git", commit_id="0123456789abcdef0123456789abcdef01234567")
    result = DirectUrl(url="https://user:pa@ss@g.c/user/repo.git", vcs_info=info).to_dict()
    # nothing of "user:pa@ss" may remain in the stored URL
    assert "ss@" not in result["url"]
    assert result["url"] == "https://g.c/user/repo.git"
