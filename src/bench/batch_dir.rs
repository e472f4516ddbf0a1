//! A batch directory as the Batch screen shows it: one row per instance, read from the
//! directory alone, while `bench` writes it or after. The batch's manifest (`batch.json`,
//! written when the batch starts) names every instance, so the ones not started yet show as
//! queued; an instance with a session and no record is running while its directory's lock is
//! held, interrupted when not. Rows are read again only when one of their files changed, so a
//! batch of hundreds of instances refreshes in the time of the few that are running.

use super::summary::{self, InstanceRecord, Line, Status};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What `bench` writes into the batch directory when it starts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub instances: Vec<ManifestRow>,
    #[serde(default)]
    pub started_unix: u64,
    /// The bench's budgets (`--budget-usd-total`, `--budget-usd-per-instance`), for the
    /// Batch screen to show beside what was spent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_usd_total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_usd_per_instance: Option<f64>,
    /// The preset the batch runs with and what it set, for the Batch screen's caption.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<crate::engine::PresetUse>,
    /// Which of the paper's systems the batch runs, when not EvoOtter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<crate::engine::Method>,
    /// What the batch said once about itself (fields of its rows evootter does not know).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestRow {
    pub id: String,
    /// `owner/name`; empty for a row of the instances file that could not be read.
    #[serde(default)]
    pub repo: String,
}

pub const MANIFEST: &str = "batch.json";

/// Writes the manifest (best effort: a batch runs without it, its screen then lists only the
/// instances that started; one read while half written is read as none).
pub fn write_manifest(dir: &Path, m: &Manifest) {
    if let Ok(j) = serde_json::to_vec_pretty(m) {
        let _ = std::fs::write(dir.join(MANIFEST), j);
    }
}

/// Where an instance stands.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Running { step: String },
    Interrupted { step: String },
    Queued,
    Error { error: String },
    EnvironmentError { error: String },
    Unsound { reason: String },
    Done,
}

impl State {
    /// One word for the table's column.
    pub fn word(&self) -> &'static str {
        match self {
            State::Queued => "queued",
            State::Running { .. } => "running",
            State::Interrupted { .. } => "interrupted",
            State::Done => "done",
            State::Error { .. } => "error",
            State::EnvironmentError { .. } => "env error",
            State::Unsound { .. } => "unsound",
        }
    }

    /// What else there is to say (the step in flight, the error).
    pub fn detail(&self) -> Option<&str> {
        match self {
            State::Running { step } | State::Interrupted { step } => Some(step),
            State::Error { error } | State::EnvironmentError { error } => Some(error),
            State::Unsound { reason } => Some(reason),
            State::Queued | State::Done => None,
        }
    }
}

/// One instance of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: String,
    pub repo: String,
    pub state: State,
    /// The figures so far (of a running instance, from its session).
    pub line: Line,
    /// Cuts made, and of them decided by fitness alone.
    pub cuts: u64,
    pub fitness_cuts: u64,
    /// The instance's session, once it has one.
    pub session: Option<PathBuf>,
    /// What the figures read of a finished instance, and its run's settings.
    pub facts: Option<super::figures::InstanceFacts>,
    pub settings: String,
    /// On a cluster: its latest task as the scheduler last told it.
    pub task: Option<super::slurm::ledger::Seen>,
}

impl Row {
    pub fn f2p(&self) -> bool {
        self.line.f2p
    }

    /// A finished-looking row for tests: 10 executions, 2 of 3 cuts by fitness, its session at
    /// `/b/ID/session.json`.
    #[cfg(test)]
    pub(crate) fn fixture(id: &str, repo: &str, state: State, f2p: bool, cost: f64) -> Row {
        Row {
            id: id.into(),
            repo: repo.into(),
            state,
            line: Line {
                instance_id: id.into(),
                f2p,
                cost_usd: Some(cost),
                executions: 10,
                ..Default::default()
            },
            cuts: 3,
            fitness_cuts: 2,
            session: Some(PathBuf::from(format!("/b/{id}/session.json"))),
            facts: None,
            settings: String::new(),
            task: None,
        }
    }
}

/// Every finished instance of the batch in `dir` (a record saying done, and a report), in id
/// order, as the figures read them (`bench --figures`, the Batch screen's `v`).
pub fn figure_facts(dir: &Path) -> anyhow::Result<super::figures::BatchFacts> {
    anyhow::ensure!(dir.is_dir(), "{} is not a directory", dir.display());
    let mut instances: Vec<(super::figures::InstanceFacts, String)> = BatchDir::open(dir)
        .refresh()
        .into_iter()
        .filter_map(|r| r.facts.map(|f| (f, r.settings)))
        .collect();
    instances.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    anyhow::ensure!(
        !instances.is_empty(),
        "{} has no finished instance to draw (a batch directory: `bench --out`)",
        dir.display()
    );
    Ok(super::figures::batch_facts(label(dir), instances))
}

/// What a batch directory is called on screens and in figures: its name (its whole path is
/// where the user gave it).
pub fn label(dir: &Path) -> String {
    dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The files a row is read from, by modification time: the row is read again when one
/// changes (or the lock is taken or let go).
#[derive(Debug, Clone, PartialEq)]
struct Stamp {
    record: Option<SystemTime>,
    session: Option<SystemTime>,
    report: Option<SystemTime>,
    locked: bool,
}

/// A batch directory, read again by [`BatchDir::refresh`].
pub struct BatchDir {
    pub dir: PathBuf,
    cache: BTreeMap<String, (Stamp, Row)>,
    manifest: ByMtime<Manifest>,
    /// Which instance's call waits in which provider batch (`llm::provider_batch::waiting`).
    waiting: ByMtime<HashMap<String, (String, u64)>>,
    /// A batch on a cluster: the scheduler asked from a thread of its own.
    scheduler: Option<super::slurm::watch::Watch>,
}

/// A file's contents as read, read again only once its modification time or length changes
/// (the length too: two appends within the clock's tick keep the time).
struct ByMtime<T> {
    stamp: Option<Option<(SystemTime, u64)>>,
    value: T,
}

impl<T: Default> Default for ByMtime<T> {
    fn default() -> Self {
        Self {
            stamp: None,
            value: T::default(),
        }
    }
}

impl<T> ByMtime<T> {
    fn get(&mut self, path: &Path, read: impl FnOnce() -> T) -> &T {
        let now = std::fs::metadata(path)
            .and_then(|m| Ok((m.modified()?, m.len())))
            .ok();
        if self.stamp != Some(now) {
            self.value = read();
            self.stamp = Some(now);
        }
        &self.value
    }
}

/// Whether `dir` holds a batch: its manifest, or an instance directory with a record.
pub fn is_batch(dir: &Path) -> bool {
    if dir.join(MANIFEST).is_file() {
        return true;
    }
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.path().join("instance.json").is_file())
    })
}

fn mtime(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

impl BatchDir {
    /// The manifest as the last refresh read it.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest.value
    }

    pub fn open(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            cache: BTreeMap::new(),
            manifest: ByMtime::default(),
            waiting: ByMtime::default(),
            scheduler: None,
        }
    }

    /// What the scheduler's view of the batch adds to its caption (`on Slurm: 1 pending, 2
    /// running`), or why it cannot be had; `None` for a batch that never ran on a cluster.
    pub fn scheduler_caption(&self) -> Option<String> {
        self.scheduler
            .as_ref()
            .map(super::slurm::watch::Watch::caption)
    }

    /// Every instance, in the manifest's order, then any other instance directory by name.
    pub fn refresh(&mut self) -> Vec<Row> {
        let path = self.dir.join(MANIFEST);
        let manifest = self.manifest.get(&path, || {
            std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
                .unwrap_or_default()
        });
        let mut ids: Vec<(String, String)> = manifest
            .instances
            .iter()
            .map(|r| (r.id.clone(), r.repo.clone()))
            .collect();
        let mut others: Vec<String> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                let p = e.path();
                p.join("instance.json").is_file() || p.join("session.json").is_file()
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !ids.iter().any(|(id, _)| id == n))
            .collect();
        others.sort();
        ids.extend(others.into_iter().map(|n| (n, String::new())));
        // A running instance's call in a provider batch (`--llm-batch`) says so.
        let journal = self.dir.join(crate::llm::provider_batch::JOURNAL);
        let waiting = self
            .waiting
            .get(&journal, || crate::llm::provider_batch::waiting(&self.dir))
            .clone();
        if self.scheduler.is_none() && super::slurm::dir(&self.dir).join("jobs.json").is_file() {
            self.scheduler = Some(super::slurm::watch::Watch::start(&self.dir));
        }
        let tasks = self
            .scheduler
            .as_ref()
            .map(super::slurm::watch::Watch::latest);
        ids.into_iter()
            .map(|(id, repo)| {
                let mut row = self.row(&id, repo);
                row.task = tasks.as_ref().and_then(|t| t.get(&id).cloned());
                if let Some((batch, since)) = waiting.get(&id) {
                    let since = crate::clock::utc_label(*since);
                    match &mut row.state {
                        State::Running { step } => {
                            step.push_str(&format!(", waiting on llm batch {batch} since {since}"))
                        }
                        State::Interrupted { step } => step.push_str(&format!(
                            ", its call waits in llm batch {batch} since {since}: bench again \
                             polls it"
                        )),
                        _ => {}
                    }
                }
                row
            })
            .collect()
    }

    fn row(&mut self, id: &str, repo: String) -> Row {
        let dir = self.dir.join(id);
        let stamp = Stamp {
            record: mtime(&dir.join("instance.json")),
            session: mtime(&dir.join("session.json")),
            report: mtime(&dir.join("report.json")),
            locked: crate::outdir::is_locked(&dir),
        };
        if let Some((s, row)) = self.cache.get(id)
            && *s == stamp
        {
            return row.clone();
        }
        let row = read_row(&dir, id, repo, &stamp);
        self.cache.insert(id.to_string(), (stamp, row.clone()));
        row
    }
}

/// The instance row's `created_at`, kept under `row` in its `instance.json`.
fn created_at(dir: &Path) -> Option<String> {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("instance.json")).ok()?).ok()?;
    v["row"]["created_at"].as_str().map(str::to_string)
}

fn read_row(dir: &Path, id: &str, repo: String, stamp: &Stamp) -> Row {
    let record: Option<InstanceRecord> = std::fs::read(dir.join("instance.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let session_path = dir.join("session.json");
    let session = stamp.session.is_some().then_some(session_path);
    let mut row = Row {
        id: id.to_string(),
        repo,
        state: State::Queued,
        line: Line {
            instance_id: id.to_string(),
            ..Default::default()
        },
        cuts: 0,
        fitness_cuts: 0,
        session: session.clone(),
        facts: None,
        settings: String::new(),
        task: None,
    };
    let report: Option<serde_json::Value> = match (&record, &session) {
        // A finished instance: its report as written.
        (Some(_), _) => std::fs::read(dir.join("report.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok()),
        // A running or interrupted one: its session as it stands, reported on the spot.
        (None, Some(p)) => crate::engine::SessionDoc::load(p).ok().map(|doc| {
            let step = doc.phase.to_string();
            row.state = if stamp.locked {
                State::Running { step }
            } else {
                State::Interrupted { step }
            };
            if row.repo.is_empty() {
                row.repo = doc.inputs.instance.clone().unwrap_or_default();
            }
            crate::engine::report::report(&doc)
        }),
        (None, None) => None,
    };
    if let Some(r) = &record {
        row.state = match &r.status {
            Status::Done => State::Done,
            Status::Error { error } => State::Error {
                error: error.clone(),
            },
            Status::EnvironmentError { error } => State::EnvironmentError {
                error: error.clone(),
            },
            Status::Unsound { reason } => State::Unsound {
                reason: reason.clone(),
            },
        };
    }
    if let (Some(rep), State::Done) = (&report, &row.state) {
        let golden = dir
            .parent()
            .map(|batch| super::figures::golden_patch(batch, id))
            .and_then(|p| std::fs::read_to_string(p).ok());
        row.facts = Some(super::figures::InstanceFacts::from_report(
            id,
            rep,
            golden.as_deref(),
        ));
        row.settings = super::figures::settings(rep);
    }
    if let Some(rep) = &report {
        row.line = summary::line(
            id,
            record
                .as_ref()
                .map_or(row.state.word(), |r| summary::status_name(&r.status)),
            rep,
            record.as_ref().and_then(|r| r.score.as_ref()),
        );
        if let Some(f) = row.facts.as_mut() {
            f.final_coverage = row.line.coverage;
            f.created_at = created_at(dir);
        }
        for g in rep["generations"].as_array().into_iter().flatten() {
            if g["selected_by"].is_string() {
                row.cuts += 1;
                row.fitness_cuts += u64::from(g["fitness_decided"].as_bool() == Some(true));
            }
        }
    }
    if let Some(r) = &record
        && r.seconds > 0.0
        && row.line.wall_seconds == 0.0
    {
        row.line.wall_seconds = r.seconds;
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_done_and_interrupted_rows_from_the_directory_alone() {
        let d = tempfile::tempdir().unwrap();
        write_manifest(
            d.path(),
            &Manifest {
                instances: ["a__x-1", "b__y-2", "c__z-3"]
                    .iter()
                    .map(|id| ManifestRow {
                        id: id.to_string(),
                        repo: "o/r".into(),
                    })
                    .collect(),
                started_unix: 1,
                ..Default::default()
            },
        );
        let done = d.path().join("a__x-1");
        std::fs::create_dir_all(&done).unwrap();
        let record = InstanceRecord {
            instance_id: "a__x-1".into(),
            status: Status::EnvironmentError {
                error: "pytest-foo is missing".into(),
            },
            score: None,
            seconds: 3.5,
            notes: vec![],
        };
        std::fs::write(
            done.join("instance.json"),
            serde_json::to_vec(&record).unwrap(),
        )
        .unwrap();
        let mut b = BatchDir::open(d.path());
        assert!(is_batch(d.path()));
        let rows = b.refresh();
        let states: Vec<&str> = rows.iter().map(|r| r.state.word()).collect();
        assert_eq!(states, ["env error", "queued", "queued"]);
        assert_eq!(rows[0].state.detail(), Some("pytest-foo is missing"));
        assert_eq!(rows[0].line.wall_seconds, 3.5);
        assert_eq!(rows[1].repo, "o/r");
        // Unchanged files: the same rows, from the cache.
        assert_eq!(b.refresh(), rows);
    }

    #[test]
    fn a_file_is_read_again_once_it_changes_and_only_then() {
        let d = tempfile::tempdir().unwrap();
        let journal = d.path().join("llm_batches.jsonl");
        let mut cached: ByMtime<String> = ByMtime::default();
        let mut reads = 0;
        let mut read = |c: &mut ByMtime<String>| {
            c.get(&journal, || {
                reads += 1;
                std::fs::read_to_string(&journal).unwrap_or_default()
            })
            .clone()
        };
        assert_eq!(read(&mut cached), "");
        std::fs::write(&journal, "one\n").unwrap();
        assert_eq!(read(&mut cached), "one\n");
        assert_eq!(read(&mut cached), "one\n");
        // An append within the same clock tick still shows: the length changed.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&journal)
            .unwrap();
        std::io::Write::write_all(&mut f, b"two\n").unwrap();
        assert_eq!(read(&mut cached), "one\ntwo\n");
        assert_eq!(read(&mut cached), "one\ntwo\n");
        assert_eq!(reads, 3, "read once per change, not per refresh");
    }
}
