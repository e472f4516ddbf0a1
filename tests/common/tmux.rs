//! A program in a real terminal: tmux runs it at a given size, keys are sent as a person
//! would press them, and the screen is read back with `capture-pane`.
#![allow(dead_code)]

use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    pub name: String,
}

impl Tmux {
    pub fn start(name: &str, width: u16, height: u16, cmd: &str) -> Self {
        let status = Command::new("tmux")
            .args(["new-session", "-d", "-s", name])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            // The pane stays after the program ends, so its last screen can be read.
            .arg(format!("{cmd}; echo EVOOTTER-EXITED $?; sleep 600"))
            .env("TERM", "xterm-256color")
            .status()
            .expect("tmux (installed by .ci/setup)");
        assert!(status.success(), "tmux new-session failed");
        Self { name: name.into() }
    }

    pub fn screen(&self) -> String {
        let o = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            let st = Command::new("tmux")
                .args(["send-keys", "-t", &self.name, k])
                .status()
                .unwrap();
            assert!(st.success());
            std::thread::sleep(Duration::from_millis(80));
        }
    }

    /// Waits until the screen shows `text` as words, wherever a paragraph wraps it (runs of
    /// white space, line ends included, read as one space); fails with the screen after
    /// `secs`.
    pub fn wait_for_words(&self, text: &str, secs: u64) -> String {
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let want = words(text);
        self.wait_until(text, secs, |s| words(s).contains(&want))
    }

    /// Waits until the screen shows `text`; fails with the screen after `secs`.
    pub fn wait_for(&self, text: &str, secs: u64) -> String {
        self.wait_until(text, secs, |s| s.contains(text))
    }

    /// The screen once `shows` holds of it; fails naming `what` after `secs`.
    fn wait_until(&self, what: &str, secs: u64, shows: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if shows(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "`{what}` never appeared; the screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .status();
    }
}
