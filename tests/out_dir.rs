//! `--out` is the user's: evootter writes only into an empty directory or one holding an
//! earlier evootter session, never over a file it did not write, and one run at a time.

use crate::common;
use common::*;
use std::time::{Duration, Instant};

#[test]
fn a_directory_of_the_users_files_is_refused_and_left_as_it_was() {
    let tiny = Tiny::four();
    let out = tiny.out("mine");
    std::fs::create_dir(&out).unwrap();
    for (name, content) in [("report.json", "my report"), ("final.patch", "my patch")] {
        std::fs::write(out.join(name), content).unwrap();
    }
    let before = fingerprint(&out);
    for force in [false, true] {
        let mut args = vec![];
        if force {
            args.push("--force");
        }
        let o = tiny.run("mine", &args);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("holds files evootter did not write (final.patch, report.json)"),
            "{err}"
        );
        assert_eq!(
            fingerprint(&out),
            before,
            "nothing written, nothing created"
        );
    }

    let file = tiny.out("a-file");
    std::fs::write(&file, "x").unwrap();
    let o = tiny.run("a-file", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is a file, not a directory"),
        "{}",
        text(&o)
    );
}

#[test]
fn starting_over_keeps_the_users_files_beside_a_session() {
    let tiny = Tiny::four();
    let first = tiny.run("out", &["--mutants", "4"]);
    assert!(first.status.success(), "{}", text(&first));
    let out = tiny.out("out");
    let final_name = read_json(&out.join("report.json"))["final_test"]
        .as_str()
        .unwrap()
        .to_string();
    let final_name = std::path::Path::new(&final_name)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // The user keeps notes there, and has replaced the final test with their own version.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join(&final_name), "# my edited test\n").unwrap();

    let again = tiny.run("out", &["--mutants", "4"]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));

    let forced = tiny.run("out", &["--mutants", "4", "--force"]);
    assert!(forced.status.success(), "{}", text(&forced));
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(out.join(&final_name)).unwrap(),
        "# my edited test\n"
    );
    let report = read_json(&out.join("report.json"));
    let written = report["final_test"].as_str().unwrap();
    assert!(
        written.ends_with("_evootter.py"),
        "the final test takes a free name: {written}"
    );
    assert!(std::path::Path::new(written).is_file());
}

#[test]
fn two_runs_on_one_out_exactly_one_runs() {
    let tiny = Tiny::four();
    let start = || {
        tiny.command("shared")
            .args(["--focal", "calc/ops.py::clamp", "--initial-tests"])
            .arg(&tiny.cands)
            .args(["--mutants", "4"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Started at the same moment: one runs, the other is told why not.
    let (a, b) = (start(), start());
    let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let ok = outs.iter().filter(|o| o.status.success()).count();
    assert_eq!(ok, 1, "{}\n{}", text(&outs[0]), text(&outs[1]));
    let refused = outs.iter().find(|o| !o.status.success()).unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("another evootter run is using") || err.contains("already holds a session"),
        "{err}"
    );

    // While a run holds the directory, a resume of it is refused, naming the holder.
    let session = tiny.out("shared").join("session.json");
    let holder = tiny
        .command("shared")
        .args(["--focal", "calc/ops.py::clamp", "--initial-tests"])
        .arg(&tiny.cands)
        .args(["--mutants", "4", "--force"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let holder_pid = holder.id();
    let lock = tiny.out("shared").join(".evootter.lock");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&lock)
        .unwrap_or_default()
        .contains(&format!("pid {holder_pid}"))
    {
        assert!(Instant::now() < deadline, "the run never took the lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = bin()
        .args(["run", "--resume"])
        .arg(&session)
        .output()
        .unwrap();
    let refused = String::from_utf8_lossy(&o.stderr).into_owned();
    let out = holder.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(o.status.code(), Some(1), "{refused}");
    assert!(
        refused.contains("another evootter run is using")
            && refused.contains(&format!("pid {holder_pid}")),
        "{refused}"
    );
}
