# to_dict() of DirectUrl for the three kinds of info, with credentials in the URL.
from packaging.direct_url import ArchiveInfo, DirectUrl, DirInfo, VcsInfo


def test_archive_url_with_at_in_password():
    d = DirectUrl(url="https://u:p@ss@files.example/pkg-1.0.tar.gz", archive_info=ArchiveInfo())
    assert d.to_dict() == {"url": "https://files.example/pkg-1.0.tar.gz", "archive_info": {}}


def test_vcs_url_plain_credentials():
    d = DirectUrl(url="https://u:p@g.c/r.git", vcs_info=VcsInfo(vcs="git", commit_id="a" * 40))
    assert d.to_dict()["url"] == "https://g.c/r.git"


def test_local_directory_keeps_file_url():
    d = DirectUrl(url="file:///home/me/project", dir_info=DirInfo(editable=True))
    assert d.to_dict() == {"url": "file:///home/me/project", "dir_info": {"editable": True}}


def test_safe_password_with_at_is_kept():
    # "git" is safe, so the whole user info stays in place
    d = DirectUrl(url="https://git@token@g.c/r.git", vcs_info=VcsInfo(vcs="git", commit_id="a" * 40))
    assert d.to_dict()["url"] == "https://git@token@g.c/r.git"
