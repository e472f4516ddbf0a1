//! Most users are not root: the same protections come from an unprivileged user namespace
//! (mapping the user onto themselves) and Landlock. Run as `nobody` with Debian's Python
//! (`.ci/setup` installs python3-pytest), a vandal still changes nothing and reaches nothing.

use crate::common;
use common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The interpreter `nobody` can run (the CI's own Python may live under /root).
const SYSTEM_PYTHON: &str = "/usr/bin/python3";

#[test]
fn an_unprivileged_user_gets_every_protection() {
    unprivileged_run(
        "cold",
        &[
            "sealed by an overlay per execution",
            "a pid namespace per execution",
        ],
    );
}

/// The same with the warm executor: its interpreter lives in the same sandbox.
#[test]
fn an_unprivileged_user_gets_every_protection_with_the_warm_executor() {
    unprivileged_run(
        "warm",
        &[
            "warm (forked per execution)",
            "sealed by rescanning the copy after each execution",
            "a pid namespace per worker, each execution's leftovers killed",
        ],
    );
}

fn unprivileged_run(executor: &str, sealing: &[&str]) {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let has_pytest = std::process::Command::new(SYSTEM_PYTHON)
        .args(["-c", "import pytest"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_pytest,
        "{SYSTEM_PYTHON} needs pytest for this test (`apt-get install python3-pytest`, as .ci/setup does)"
    );
    let marker = format!("31.{}{}", std::process::id(), u8::from(executor == "warm"));
    let tiny = Tiny::four();
    let outside = tiny.dir.path().join("outside.txt");
    std::fs::write(
        tiny.cands.join("test_0_vandal.py"),
        format!(
            "import os, subprocess\n\n\
             def test_vandal():\n    \
                 open('calc/ops.py', 'w').write('raise SystemExit(1)\\n')\n    \
                 subprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n    \
                 try:\n        \
                     open({outside:?}, 'w').write('x')\n    \
                 except OSError:\n        \
                     pass\n    \
                 assert False\n",
            outside = outside.display().to_string()
        ),
    )
    .unwrap();
    // Everything `nobody` needs must be reachable by it: the binary, the repo, the out dir.
    let bin_copy = tiny.dir.path().join("evootter");
    std::fs::copy(env!("CARGO_BIN_EXE_evootter"), &bin_copy).unwrap();
    chmod_tree(tiny.dir.path());
    let mut cmd = if root {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin_copy);
        c
    } else {
        std::process::Command::new(&bin_copy)
    };
    let out = cmd
        .env("HOME", tiny.dir.path().join("home"))
        .args(["run", "--focal", "calc/ops.py::clamp", "--mutants", "4"])
        .args(["--executor", executor])
        .args(["--python", SYSTEM_PYTHON, "--repo"])
        .arg(&tiny.repo)
        .arg("--issue")
        .arg(tiny.dir.path().join("issue.md"))
        .arg("--initial-tests")
        .arg(&tiny.cands)
        .arg("--golden-patch")
        .arg(tiny.golden_patch())
        .arg("--out")
        .arg(tiny.out("out"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    for protection in sealing.iter().copied().chain([
        "no network (a private network namespace)",
        "writes confined (Landlock ABI",
    ]) {
        assert!(err.contains(protection), "missing `{protection}`: {err}");
    }
    let r = read_json(&tiny.out("out").join("report.json"));
    assert_eq!(r["f2p"]["f2p"], true, "{r:#}");
    assert_ne!(r["final_test_id"], "t1");
    assert!(!outside.exists(), "the vandal wrote outside its copy");
    assert!(processes_mentioning(&marker).is_empty());
}

fn chmod_tree(dir: &Path) {
    let mode = if dir.is_dir() { 0o777 } else { 0o755 };
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
    if dir.is_dir() {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if !e.file_type().unwrap().is_symlink() {
                chmod_tree(&e.path());
            }
        }
    }
}
