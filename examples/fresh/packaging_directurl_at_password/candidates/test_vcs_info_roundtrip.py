from packaging.direct_url import DirectUrl


def test_from_dict_roundtrip_strips_credentials():
    data = {
        "url": "https://user:secret@g.c/user/repo.git",
        "vcs_info": {"vcs": "git", "commit_id": "c" * 40, "requested_revision": "main"},
    }
    d = DirectUrl.from_dict(data)
    out = d.to_dict()
    assert out["url"] == "https://g.c/user/repo.git"
    assert out["vcs_info"] == data["vcs_info"]
    assert DirectUrl.from_dict(out).vcs_info == d.vcs_info
