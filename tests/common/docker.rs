//! What the Docker tests share: the image, whether a daemon has it, an executor's config,
//! and what a container holds (its processes, the containers of a label).

use super::text;
use evootter::exec::{DockerConfig, ExecResult, LocalConfig, LocalExecutor, Wanted};
use std::path::Path;
use std::process::Command;

pub fn image() -> String {
    std::env::var("EVOOTTER_TEST_IMAGE").unwrap_or_else(|_| "evootter-python:bookworm".into())
}

/// Whether the daemon and the image are there; under CI their absence fails the test.
pub fn docker_ready() -> bool {
    let problem = match Command::new("docker")
        .args(["image", "inspect", "--format", "{{.Id}}", &image()])
        .output()
    {
        Ok(o) if o.status.success() => return true,
        Ok(o) => format!(
            "no Docker daemon or no image {}: {}",
            image(),
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => format!("no docker command: {e}"),
    };
    if std::env::var_os("CI").is_some() {
        panic!("{problem}; run `bash .ci/docker` first");
    }
    eprintln!("SKIPPED: {problem} (run `bash .ci/docker`)");
    false
}

pub fn docker_cfg(repo: &Path, pythonpath: Vec<String>, jobs: usize) -> DockerConfig {
    DockerConfig {
        image: image(),
        jobs,
        pythonpath,
        repo: repo.to_path_buf(),
        ..Default::default()
    }
}

pub fn local(repo: &Path, pythonpath: Vec<String>, jobs: usize, warm: bool) -> LocalExecutor {
    LocalExecutor::new(LocalConfig {
        repo: repo.to_path_buf(),
        python: "/usr/bin/python3".into(),
        pythonpath,
        jobs,
        isolation: Wanted::default(),
        warm,
        pass_env: vec![],
    })
    .unwrap()
}

pub fn summary(r: &ExecResult) -> (String, String, String) {
    (
        format!("{:?}", r.outcome),
        r.normalized_log.clone(),
        format!("{:?}", r.status_map),
    )
}

/// How the warm interpreter shows in a container's process list.
pub const ZYGOTE: &str = "/tmp/evootter/zygote/evootter_zygote_main.py";

/// The processes in a container other than pid 1, each as `pid comm state cmdline`.
pub fn container_processes(container: &str) -> Vec<String> {
    let out = Command::new("docker")
        .args(["exec", container, "sh", "-c"])
        .arg(
            "for p in /proc/[0-9]*; do p=${p#/proc/}; [ \"$p\" = 1 ] || [ \"$p\" = \"$$\" ] || \
             echo \"$p $(cat /proc/$p/comm) $(grep State /proc/$p/status) \
             $(tr '\\0' ' ' < /proc/$p/cmdline)\"; done",
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

pub fn containers_with_label(host: Option<&str>, label: &str) -> Vec<String> {
    let mut cmd = Command::new("docker");
    if let Some(h) = host {
        cmd.args(["-H", h]);
    }
    let out = cmd
        .args(["ps", "-aq", "--filter", &format!("label={label}")])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}
