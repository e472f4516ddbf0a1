//! The scheduler watched for a screen: a thread asks `squeue` every second (through the
//! ledger, so what it sees is kept in OUT for the summary) and keeps the last answer, so that
//! reading the batch directory never waits on a controller. Without `squeue` on this machine,
//! or when it fails, the ledger's last record stands in, and the caption says so.

use super::ledger::{self, Seen, by_instance};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Default)]
struct Known {
    /// Each instance's latest task, by instance id.
    tasks: BTreeMap<String, Seen>,
    /// Why the scheduler could not be asked at the last look.
    error: Option<String>,
}

/// A running watch; dropping it ends the thread at its next wake.
pub struct Watch {
    known: Arc<Mutex<Known>>,
    stop: Arc<AtomicBool>,
}

const EVERY: Duration = Duration::from_secs(1);

/// What the scheduler says now, or the ledger's record and why the scheduler could not say.
fn ask(out: &Path) -> Known {
    match ledger::look(out) {
        Ok(all) => Known {
            tasks: by_instance(&all),
            error: None,
        },
        Err(e) => Known {
            tasks: by_instance(&ledger::read(out)),
            error: Some(e),
        },
    }
}

impl Watch {
    /// Asks the scheduler once (a screen never shows a stale record first), then every
    /// second from a thread.
    pub fn start(out: &Path) -> Watch {
        let known = Arc::new(Mutex::new(ask(out)));
        let stop = Arc::new(AtomicBool::new(false));
        let (k, s, out): (_, _, PathBuf) = (known.clone(), stop.clone(), out.to_path_buf());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                std::thread::sleep(EVERY);
                let now = ask(&out);
                if let Ok(mut g) = k.lock() {
                    *g = now;
                }
            }
        });
        Watch { known, stop }
    }

    /// Each instance's latest task as last known, by instance id.
    pub fn latest(&self) -> BTreeMap<String, Seen> {
        self.known
            .lock()
            .map(|g| g.tasks.clone())
            .unwrap_or_default()
    }

    /// `on Slurm: 1 pending, 2 running, 3 completed`, or why the scheduler cannot say.
    pub fn caption(&self) -> String {
        let Ok(g) = self.known.lock() else {
            return String::new();
        };
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for s in g.tasks.values() {
            let word = match s.state.state.as_str() {
                "PENDING" => "pending".to_string(),
                _ if s.state.running() => "running".to_string(),
                _ => s.state.words(),
            };
            *counts.entry(word).or_default() += 1;
        }
        let said: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
        let counts = if said.is_empty() {
            "no task recorded".into()
        } else {
            said.join(", ")
        };
        match &g.error {
            None => format!("on Slurm: {counts}"),
            // The whole error is long (both squeue forms): its first part says enough.
            Some(e) => format!(
                "on Slurm, as last recorded ({}): {counts}",
                e.split(['(', ';']).next().unwrap_or(e).trim()
            ),
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
