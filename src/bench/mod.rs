//! Benchmark mode: a batch of SWE-bench-style instances, each run as a headless workbench
//! session into `OUT/INSTANCE/`, scored the way the public harnesses score, summarized, and
//! written as a predictions file the official harnesses can score on their own.
//!
//! A batch is resumable: an instance whose session is done is not run again (its score is
//! kept), one interrupted mid-run is resumed from its session. The golden patch is used only to
//! evaluate; the developer's test patch only by `--validate`.

pub mod batch_dir;
pub mod charts;
pub mod facts;
pub mod figures;
pub mod golden_kills;
pub mod instances;
pub mod paper_tables;
pub mod score;
pub mod slurm;
pub mod summary;

use crate::engine::SessionDoc;
use crate::exec::{self, ExecRequest, ExecResult};
use crate::llm::budget::Budget;
use crate::llm::provider_batch::{BatchClient, BatchNews, Batcher, Pacing, Participant};
use crate::outdir::{Intent, OutDir};
use crate::workbench::{self, Command, Ending, Options, RunOptions, Workbench};
use instances::Row;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use summary::{InstanceRecord, Status};

/// A batch and how to run it.
#[derive(Debug, Clone)]
pub struct Batch {
    pub rows: PathBuf,
    /// Where the mirrors are (`DIR/OWNER/NAME[.git]`).
    pub repos: PathBuf,
    pub out: PathBuf,
    /// Instances run at once.
    pub parallel: usize,
    /// Check each instance first (the developer's test fails before the fix, passes after);
    /// unsound ones are marked and not counted.
    pub validate: bool,
    /// Give the model the row's `hints_text` (the issue's comments before the fix) after the
    /// issue, as SWE-bench's harness may; off by default, as the paper runs.
    pub hints: bool,
    /// The run options every instance gets (its repo, issue, patch and out are the batch's).
    pub template: RunOptions,
    /// Name in the predictions file.
    pub model_name: String,
    /// `--budget-usd-total`: dollars all instances may spend together, earlier runs of the
    /// batch included.
    pub budget_usd_total: Option<f64>,
    /// `--llm-batch`: the instances' model calls go as provider batches, paced so.
    pub llm_batch: Option<Pacing>,
    /// `--row N`: run only the row at this index (0-based), as one task of a cluster's job
    /// array does; the batch's manifest and summary are the submitting bench's.
    pub only: Option<usize>,
}

/// The step an instance's saved session stands at, when it has one to resume.
fn resumes(dir: &Path) -> Option<String> {
    let p = dir.join(crate::outdir::SESSION_FILE);
    p.is_file()
        .then(|| crate::engine::SessionDoc::load(&p).ok())
        .flatten()
        .map(|d| d.phase.to_string())
}

/// What the batch reports as it goes.
#[derive(Debug, Clone)]
pub enum Progress {
    Started {
        instance: String,
        /// The step its saved session stood at, when it resumes one.
        resumes: Option<String>,
    },
    /// A provider batch was submitted, is still waiting, ended, or a request of it is sent
    /// again alone (`--llm-batch`).
    LlmBatch { news: BatchNews },
    /// Something about the whole batch the user should hear once (fields of the rows that
    /// evootter does not know).
    Note { text: String },
    Finished {
        record: Box<InstanceRecord>,
        done: usize,
        total: usize,
        f2p: usize,
        cost_usd: f64,
        left: Option<Duration>,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error("cannot read the instances file {path}: {source}")]
    Rows {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{0} is not a directory of mirrors; pass --repos DIR holding OWNER/NAME or OWNER/NAME.git"
    )]
    NoRepos(PathBuf),
    /// Why the batch's model cannot take `--llm-batch` (the words name the flag).
    #[error("{0}")]
    LlmBatch(String),
    /// A `--row` the rows file does not have.
    #[error("{0}")]
    Row(String),
    #[error("cannot write the batch output {path}: {source}")]
    Out {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What the batch says once about its rows: the fields no benchmark evootter knows has.
fn rows_notes(rows: &[Result<Row, instances::BadRow>]) -> Vec<String> {
    let unknown = instances::unknown_fields(rows.iter().filter_map(|r| r.as_ref().ok()));
    if unknown.is_empty() {
        return vec![];
    }
    let each: Vec<String> = unknown
        .iter()
        .map(|(k, n)| format!("{k} ({n} row{})", if *n == 1 { "" } else { "s" }))
        .collect();
    vec![format!(
        "the rows carry fields evootter does not know: {}; each is kept under `row` in its \
         instance.json, and none reaches the model (a field evootter reads may be misspelled \
         there)",
        each.join(", ")
    )]
}

/// `instance.json`: the record, and under `row` the fields of the instance's row evootter
/// keeps without using (`created_at`, `PASS_TO_PASS`, ..., and any it does not know).
fn write_record(dir: &Path, r: &InstanceRecord, row: Option<&BTreeMap<String, serde_json::Value>>) {
    let _ = std::fs::create_dir_all(dir);
    let Ok(mut v) = serde_json::to_value(r) else {
        return;
    };
    if let Some(fields) = row.filter(|f| !f.is_empty()) {
        v["row"] = serde_json::json!(fields);
    }
    if let Ok(j) = serde_json::to_vec_pretty(&v) {
        let _ = std::fs::write(dir.join("instance.json"), j);
    }
}

/// Runs every row (`parallel` at a time), reporting on `progress`; returns the records.
pub async fn run(
    b: Batch,
    progress: tokio::sync::mpsc::UnboundedSender<Progress>,
) -> Result<Vec<InstanceRecord>, BatchError> {
    let rows = instances::read(&b.rows).map_err(|source| BatchError::Rows {
        path: b.rows.clone(),
        source,
    })?;
    if !b.repos.is_dir() {
        return Err(BatchError::NoRepos(b.repos.clone()));
    }
    std::fs::create_dir_all(&b.out).map_err(|source| BatchError::Out {
        path: b.out.clone(),
        source,
    })?;
    let notes = rows_notes(&rows);
    for text in &notes {
        let _ = progress.send(Progress::Note { text: text.clone() });
    }
    let total = rows.len();
    if let Some(n) = b.only {
        return run_only(b, rows, n, progress).await;
    }
    write_manifest_of(&b, &rows, notes);
    let total_budget = b.budget_usd_total.map(|limit| {
        let spent = rows
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|r| spent_in(&b.out.join(&r.instance_id)))
            .sum();
        Budget::shared(TOTAL_FLAG, limit, spent)
    });
    let batcher = match b.llm_batch {
        Some(pacing) => Some(batcher(&b, pacing, progress.clone())?),
        None => None,
    };
    let b = Arc::new(b);
    let permits = Arc::new(tokio::sync::Semaphore::new(b.parallel.max(1)));
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for (i, row) in rows.into_iter().enumerate() {
        let b = b.clone();
        let permits = permits.clone();
        let progress = progress.clone();
        let total_budget = total_budget.clone();
        let batcher = batcher.clone();
        set.spawn(async move {
            let _p = permits.acquire_owned().await;
            // From now until its run ends, the other instances' calls wait for this one's.
            let turn = batcher.as_ref().map(Batcher::participant);
            let id = match &row {
                Ok(r) => r.instance_id.clone(),
                Err(bad) => bad.name(),
            };
            let _ = progress.send(Progress::Started {
                resumes: resumes(&b.out.join(&id)),
                instance: id.clone(),
            });
            let t0 = Instant::now();
            let dir = b.out.join(&id);
            let fields = row.as_ref().ok().map(|r| r.fields.clone());
            let mut record = match row {
                // Spent: nothing starts (a later bench with a larger budget does).
                Ok(_) if total_budget.as_ref().is_some_and(Budget::exhausted) => InstanceRecord {
                    instance_id: id.clone(),
                    status: Status::Error {
                        error: format!(
                            "not started: {TOTAL_FLAG} {:.2} is spent",
                            b.budget_usd_total.unwrap_or_default()
                        ),
                    },
                    score: None,
                    seconds: 0.0,
                    notes: vec![],
                },
                Ok(row) => {
                    let model = batcher
                        .as_ref()
                        .map(|bt| (bt.client(&row.instance_id), turn));
                    run_one(&b, i, &row, &dir, total_budget, model).await
                }
                Err(bad) => InstanceRecord {
                    instance_id: id.clone(),
                    status: Status::Error { error: bad.error },
                    score: None,
                    seconds: 0.0,
                    notes: vec![],
                },
            };
            if record.seconds == 0.0 && !matches!(record.status, Status::Done) {
                record.seconds = t0.elapsed().as_secs_f64();
            }
            write_record(&dir, &record, fields.as_ref());
            (i, record)
        });
    }
    let mut records: Vec<(usize, InstanceRecord)> = vec![];
    let (mut f2p, mut cost) = (0usize, 0.0f64);
    while let Some(j) = set.join_next().await {
        let Ok((i, record)) = j else { continue };
        f2p += usize::from(record.score.as_ref().is_some_and(|s| s.tdd));
        cost += spent_in(&b.out.join(&record.instance_id));
        records.push((i, record.clone()));
        let done = records.len();
        let left = (done < total).then(|| {
            let per = started.elapsed() / done as u32;
            per * (total - done) as u32
        });
        let _ = progress.send(Progress::Finished {
            record: Box::new(record),
            done,
            total,
            f2p,
            cost_usd: cost,
            left,
        });
    }
    records.sort_by_key(|(i, _)| *i);
    let records: Vec<InstanceRecord> = records.into_iter().map(|(_, r)| r).collect();
    write_outputs(&b, &records)?;
    Ok(records)
}

/// Every instance named up front, so that a screen on the directory shows the queued ones.
fn write_manifest_of(b: &Batch, rows: &[Result<Row, instances::BadRow>], notes: Vec<String>) {
    batch_dir::write_manifest(
        &b.out,
        &batch_dir::Manifest {
            instances: rows
                .iter()
                .map(|r| match r {
                    Ok(r) => batch_dir::ManifestRow {
                        id: r.instance_id.clone(),
                        repo: r.repo.clone(),
                    },
                    Err(bad) => batch_dir::ManifestRow {
                        id: bad.name(),
                        repo: String::new(),
                    },
                })
                .collect(),
            started_unix: crate::clock::now_unix(),
            budget_usd_total: b.budget_usd_total,
            budget_usd_per_instance: b.template.budget_usd,
            preset: workbench::resolve::preset_use(&b.template),
            method: b
                .template
                .method
                .filter(|m| *m != crate::engine::Method::Evootter),
            notes,
        },
    );
}

/// The batch's manifest, as a local bench writes it first (a cluster's submitting bench).
pub fn announce(b: &Batch) -> Result<(), BatchError> {
    let rows = instances::read(&b.rows).map_err(|source| BatchError::Rows {
        path: b.rows.clone(),
        source,
    })?;
    std::fs::create_dir_all(&b.out).map_err(|source| BatchError::Out {
        path: b.out.clone(),
        source,
    })?;
    let notes = rows_notes(&rows);
    write_manifest_of(b, &rows, notes);
    Ok(())
}

/// One row of the batch (`--row N`), as a cluster task runs it: its record written, nothing
/// else of the batch's (the submitting bench writes the manifest and the summary).
async fn run_only(
    b: Batch,
    rows: Vec<Result<Row, instances::BadRow>>,
    n: usize,
    progress: tokio::sync::mpsc::UnboundedSender<Progress>,
) -> Result<Vec<InstanceRecord>, BatchError> {
    let total = rows.len();
    let Some(row) = rows.into_iter().nth(n) else {
        return Err(BatchError::Row(format!(
            "--row {n}: the rows file has {total} rows (0 to {})",
            total.saturating_sub(1)
        )));
    };
    let t0 = Instant::now();
    let (id, record, fields) = match row {
        Ok(row) => {
            let dir = b.out.join(&row.instance_id);
            // Another process runs it (a job submitted by hand beside the batch's): it is
            // left to that one, and nothing of it is written from here.
            if crate::outdir::is_locked(&dir) {
                return Err(BatchError::Row(format!(
                    "{} is being run by another process now (its directory is locked): this \
                     task leaves it to that one",
                    row.instance_id
                )));
            }
            let _ = progress.send(Progress::Started {
                instance: row.instance_id.clone(),
                resumes: resumes(&dir),
            });
            let record = run_one(&b, n, &row, &dir, None, None).await;
            (row.instance_id.clone(), record, Some(row.fields.clone()))
        }
        Err(bad) => {
            let name = bad.name();
            let record = InstanceRecord {
                instance_id: name.clone(),
                status: Status::Error { error: bad.error },
                score: None,
                seconds: 0.0,
                notes: vec![],
            };
            (name, record, None)
        }
    };
    let mut record = record;
    if record.seconds == 0.0 && !matches!(record.status, Status::Done) {
        record.seconds = t0.elapsed().as_secs_f64();
    }
    write_record(&b.out.join(&id), &record, fields.as_ref());
    let f2p = usize::from(record.score.as_ref().is_some_and(|s| s.tdd));
    let _ = progress.send(Progress::Finished {
        record: Box::new(record.clone()),
        done: 1,
        total: 1,
        f2p,
        cost_usd: spent_in(&b.out.join(&id)),
        left: None,
    });
    Ok(vec![record])
}

/// The batch's summary and predictions from the records its instances wrote (after a
/// cluster's tasks, each of which wrote its own), in the rows' order.
pub fn finish(b: &Batch) -> Result<(Vec<InstanceRecord>, summary::Summary), BatchError> {
    let rows = instances::read(&b.rows).map_err(|source| BatchError::Rows {
        path: b.rows.clone(),
        source,
    })?;
    let records: Vec<InstanceRecord> = rows
        .iter()
        .map(|r| match r {
            Ok(r) => r.instance_id.clone(),
            Err(bad) => bad.name(),
        })
        .filter_map(|id| {
            let bytes = std::fs::read(b.out.join(&id).join("instance.json")).ok()?;
            serde_json::from_slice(&bytes).ok()
        })
        .collect();
    let s = write_outputs(b, &records)?;
    Ok((records, s))
}

/// The summary (table and JSON) and the predictions file; the summary written.
fn write_outputs(b: &Batch, records: &[InstanceRecord]) -> Result<summary::Summary, BatchError> {
    let err = |path: PathBuf| move |source| BatchError::Out { path, source };
    let s = summary::read(&b.out).map_err(err(b.out.clone()))?;
    let json = serde_json::to_vec_pretty(&s).unwrap_or_default();
    std::fs::write(b.out.join("summary.json"), json).map_err(err(b.out.join("summary.json")))?;
    std::fs::write(b.out.join("summary.txt"), summary::table(&s))
        .map_err(err(b.out.join("summary.txt")))?;
    let mut pred = String::new();
    for r in records {
        let patch = std::fs::read_to_string(b.out.join(&r.instance_id).join("final.patch"))
            .unwrap_or_default();
        let line = serde_json::json!({
            "instance_id": r.instance_id,
            "model_name_or_path": b.model_name,
            "model_patch": patch,
        });
        pred.push_str(&line.to_string());
        pred.push('\n');
    }
    std::fs::write(b.out.join("predictions.jsonl"), pred)
        .map_err(err(b.out.join("predictions.jsonl")))?;
    Ok(s)
}

/// Inputs the batch keeps for an instance, beside its session: the checkout, the issue, the
/// golden and test patches.
fn work_dir(b: &Batch, id: &str) -> PathBuf {
    b.out.join(".work").join(id)
}

const TOTAL_FLAG: &str = "--budget-usd-total";

/// The batch's provider, batching, its news told as progress.
fn batcher(
    b: &Batch,
    pacing: Pacing,
    progress: tokio::sync::mpsc::UnboundedSender<Progress>,
) -> Result<Batcher, BatchError> {
    let cfg = b.template.llm_config();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(news) = rx.recv().await {
            let _ = progress.send(Progress::LlmBatch { news });
        }
    });
    workbench::model::batcher(&cfg, &b.out, pacing, Some(tx)).map_err(BatchError::LlmBatch)
}

/// What an instance's session has paid for so far (nothing without a session): its report's
/// figure when the report is as new as the session (an ended run's), which spares reading a
/// whole session per instance when a large batch starts again; else the session's calls.
fn spent_in(dir: &Path) -> f64 {
    let session = dir.join(crate::outdir::SESSION_FILE);
    let report = dir.join("report.json");
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let read = |p: &Path| {
        std::fs::read(p)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
    };
    if let (Some(r), Some(s)) = (mtime(&report), mtime(&session))
        && r >= s
        && let Some(cost) = read(&report).and_then(|v| v["cost_usd"].as_f64())
    {
        return cost;
    }
    read(&session)
        .and_then(|v| {
            v["llm_calls"]
                .as_array()
                .map(|calls| calls.iter().filter_map(|c| c["cost_usd"].as_f64()).sum())
        })
        .unwrap_or(0.0)
}

async fn run_one(
    b: &Batch,
    index: usize,
    row: &Row,
    dir: &Path,
    total_budget: Option<Budget>,
    batched: Option<(BatchClient, Option<Participant>)>,
) -> InstanceRecord {
    let id = row.instance_id.clone();
    let error = |e: String| InstanceRecord {
        instance_id: id.clone(),
        status: Status::Error { error: e },
        score: None,
        seconds: 0.0,
        notes: vec![],
    };
    // Already finished by an earlier batch: nothing runs again.
    if let Ok(b) = std::fs::read(dir.join("instance.json"))
        && let Ok(r) = serde_json::from_slice::<InstanceRecord>(&b)
        && !matches!(r.status, Status::Error { .. })
        && (r.score.is_some() || matches!(r.status, Status::Unsound { .. }))
    {
        return InstanceRecord { seconds: 0.0, ..r };
    }
    let work = work_dir(b, &id);
    let repo = work.join("repo");
    let prepared = {
        let (repos, row2, repo2) = (b.repos.clone(), row.clone(), repo.clone());
        tokio::task::spawn_blocking(move || -> Result<(), String> {
            let m = instances::mirror(&repos, &row2.repo).map_err(|e| e.to_string())?;
            instances::checkout(&m, &row2, &repo2).map_err(|e| e.to_string())
        })
        .await
    };
    match prepared {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return error(e),
        Err(e) => return error(e.to_string()),
    }
    let issue = work.join("issue.md");
    let golden = work.join("golden.patch");
    if let Err(e) = std::fs::write(&issue, issue_text(row, b.hints))
        .and_then(|_| std::fs::write(&golden, &row.patch))
    {
        return error(format!("cannot write {}: {e}", work.display()));
    }
    if let Some(tests) = &row.initial_tests
        && let Err(e) = write_candidates(&work.join("candidates"), tests)
    {
        return error(e);
    }
    let req = match request_for(b, index, row, dir, &work) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    if b.validate {
        match validate(&req, row, &work).await {
            Ok(None) => {}
            Ok(Some(reason)) => {
                return InstanceRecord {
                    instance_id: id,
                    status: Status::Unsound { reason },
                    score: None,
                    seconds: 0.0,
                    notes: vec![],
                };
            }
            Err(e) => return error(e),
        }
    }

    let session = dir.join(crate::outdir::SESSION_FILE);
    let prepared = if session.is_file() {
        workbench::resume(&session, &b.template)
    } else {
        req.prepare()
    };
    let prepared = match prepared {
        Ok(p) => p,
        Err(e) => return error(e.to_string()),
    };
    let (model, turn) = match batched {
        Some((client, turn)) => (Some(workbench::model::cached(Box::new(client))), turn),
        None => (None, None),
    };
    let options = Options {
        budget_flag: Some("--budget-usd-per-instance"),
        budgets: total_budget.into_iter().collect(),
        model,
        ..Options::default()
    };
    let mut wb = match Workbench::start(prepared, options).await {
        Ok(w) => w,
        Err(e) => return error(e.to_string()),
    };
    wb.send(Command::RunToEnd);
    while wb.next_event().await.is_some() {}
    let finished = wb.finish().await;
    // Its run makes no more calls: the others' need not wait for it.
    drop(turn);
    let finished = match finished {
        Ok(f) => f,
        Err(e) => return error(e.to_string()),
    };
    match finished.ending {
        Ending::Done { .. } => {}
        Ending::Cancelled => return error("cancelled".into()),
        // Named, not scored: the environment cannot run this instance's tests.
        Ending::Failed {
            error: crate::engine::EngineError::Environment(line),
        } => {
            return InstanceRecord {
                instance_id: id,
                status: Status::EnvironmentError { error: line },
                score: None,
                seconds: finished.doc.timings.wall_seconds,
                notes: vec![],
            };
        }
        Ending::Failed { error: e } => return error(e.to_string()),
    }
    let doc = finished.doc;
    let (before, after) = match coverage_runs(&doc, &row.patch).await {
        Ok(t) => t,
        Err(e) => return error(format!("coverage runs: {e}")),
    };
    // TDD-Bench-Verified scores sympy without coverage.
    let weigh = !row.repo.eq_ignore_ascii_case("sympy/sympy");
    let mut score = score::score(&doc, before.as_ref(), after.as_ref(), &row.patch, weigh);
    if b.validate {
        match developer_kills(&req, row, &work, &doc).await {
            Ok(k) => score.golden_kills = k,
            Err(e) => return error(format!("the developer's tests on the mutants: {e}")),
        }
    }
    if let Ok(out) = OutDir::claim(dir, Intent::Resume)
        && let Ok(j) = serde_json::to_vec_pretty(&score)
    {
        let _ = out.write("score.json", &j);
    }
    InstanceRecord {
        instance_id: id,
        status: Status::Done,
        score: Some(score),
        seconds: doc.timings.wall_seconds,
        notes: doc
            .notes
            .iter()
            .filter(|n| n.starts_with("docker host "))
            .cloned()
            .collect(),
    }
}

/// The run options of one row: the batch's, with the row's repository, issue, golden patch
/// and own settings, its Docker image, and the batch's Docker hosts in this row's order.
fn request_for(
    b: &Batch,
    index: usize,
    row: &Row,
    dir: &Path,
    work: &Path,
) -> Result<RunOptions, String> {
    let id = &row.instance_id;
    let mut req = b.template.clone();
    req.repo = Some(work.join("repo"));
    req.issue = Some(work.join("issue.md"));
    req.golden_patch = Some(work.join("golden.patch"));
    req.out = Some(dir.to_path_buf());
    req.instance = None;
    req.instance_id = Some(id.clone());
    req.force = false;
    if req.llm.is_none()
        && let Some(s) = &row.llm_script
    {
        req.llm = Some(format!("scripted:{}", s.display()));
    }
    if let Some(pp) = &row.pythonpath {
        req.pythonpath = pp.clone();
    }
    // Instances start on different hosts, so a batch is spread over all of them; each
    // instance still has every host to fail over to.
    if !req.docker_hosts.is_empty() {
        let n = req.docker_hosts.len();
        req.docker_hosts.rotate_left(index % n);
    }
    // A row's own image wins over the batch's template.
    if req.backend == crate::engine::Backend::Docker {
        req.image = row
            .image
            .clone()
            .or_else(|| req.image.as_deref().map(|t| workbench::image_for(t, id)));
    }
    if let Some(td) = &row.test_dir {
        req.test_dir = Some(td.clone());
    }
    // The row's own candidates and focal functions, as --initial-tests and --focal give them.
    if row.initial_tests.is_some() {
        req.initial_tests = Some(work.join("candidates"));
    }
    for f in &row.focal {
        let focal = f
            .parse()
            .map_err(|e| format!("the row's focal function `{f}`: {e}"))?;
        req.focal.push(focal);
    }
    Ok(req)
}

/// The issue the run reads: the row's problem statement, and with `hints` its `hints_text`
/// after it (when the row has one).
fn issue_text(row: &Row, hints: bool) -> String {
    let hint = row
        .fields
        .get("hints_text")
        .and_then(|h| h.as_str())
        .map(str::trim);
    match hint {
        Some(h) if hints && !h.is_empty() => format!(
            "{}\n\nHints (the issue's discussion before the fix):\n\n{h}\n",
            row.problem_statement.trim_end()
        ),
        _ => row.problem_statement.clone(),
    }
}

/// A row's initial candidates as the files of `dir` (made afresh: a resumed batch writes the
/// same), each a plain `*.py` name.
fn write_candidates(dir: &Path, tests: &BTreeMap<String, String>) -> Result<(), String> {
    if tests.is_empty() {
        return Err("the row's initial_tests is empty; give file name -> test source".into());
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    for (name, source) in tests {
        let plain = Path::new(name)
            .file_name()
            .is_some_and(|f| f == name.as_str());
        if !plain || !name.ends_with(".py") || name.starts_with('.') {
            return Err(format!(
                "the row's initial_tests names `{name}`: give plain file names such as \
                 test_issue.py"
            ));
        }
        std::fs::write(dir.join(name), source)
            .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))?;
    }
    Ok(())
}

/// The final test's coverage runs, as TDD-Bench-Verified makes them: on the code before the
/// fix (measuring the lines the golden patch deletes) and on the fixed code (the lines it
/// adds), each traced with coverage.py where the interpreter has it. A side with no changed
/// code line is not run.
async fn coverage_runs(
    doc: &SessionDoc,
    patch: &str,
) -> Result<(Option<ExecResult>, Option<ExecResult>), String> {
    let (Some(t), Some(patch_path)) = (&doc.final_test, &doc.inputs.golden_patch) else {
        return Ok((None, None));
    };
    let (deleted, added) = (
        score::patch_lines(patch, false),
        score::patch_lines(patch, true),
    );
    if deleted.is_empty() && added.is_empty() {
        return Ok((None, None));
    }
    let golden =
        crate::eval::golden_files(&doc.inputs.repo, patch_path).map_err(|e| e.to_string())?;
    let ex = workbench::executor_for(doc, 1)
        .await
        .map_err(|e| e.to_string())?;
    let c = &doc.tests[t];
    let test = exec::FileOverride {
        rel_path: c.rel_path.clone(),
        content: c.source.clone(),
    };
    let timeout = Duration::from_secs_f64(doc.config.timeout_secs);
    let run = async |mut req: ExecRequest, files: &BTreeMap<String, Vec<u32>>| {
        if files.is_empty() {
            return Ok(None);
        }
        req.trace = files.keys().cloned().collect();
        req.tracer = exec::Tracer::Coverage;
        ex.run(req).await.map(Some).map_err(|e| e.to_string())
    };
    // Before the fix: the test alone on `c_old`.
    let old = ExecRequest {
        test: test.clone(),
        overrides: vec![],
        removed: vec![],
        timeout,
        trace: vec![],
        tracer: exec::Tracer::Lines,
        per_test: false,
        select: vec![],
        stop_at_first_failure: false,
    };
    let before = run(old, &deleted).await?;
    let after = run(golden.request(test, timeout), &added).await?;
    Ok((before, after))
}

/// The executor `--validate` runs the developer's tests with: the run's backend, `jobs` at
/// a time.
async fn validation_executor(
    req: &RunOptions,
    repo: &Path,
    jobs: usize,
) -> Result<std::sync::Arc<dyn exec::Executor>, String> {
    let pythonpath = if req.pythonpath.is_empty() {
        crate::engine::setup::default_pythonpath(repo)
    } else {
        req.pythonpath.clone()
    };
    match req.backend {
        crate::engine::Backend::Local => {
            let python = exec::resolve_python(req.python.as_deref()).map_err(|e| e.to_string())?;
            workbench::build_executor(workbench::ExecutorSpec {
                repo,
                python: &python.path.display().to_string(),
                pythonpath: &pythonpath,
                sandbox: !req.no_sandbox,
                docker: None,
                warm: req.executor == crate::engine::ExecutorKind::Warm,
                jobs,
                pass_env: &req.pass_env,
            })
            .await
        }
        crate::engine::Backend::Docker => {
            let d = workbench::docker_settings(req, None).map_err(|e| e.to_string())?;
            workbench::build_executor(workbench::ExecutorSpec {
                repo,
                python: &d.python,
                pythonpath: &pythonpath,
                sandbox: false,
                docker: Some(&d),
                warm: false,
                jobs,
                pass_env: &req.pass_env,
            })
            .await
        }
    }
    .map_err(|e| e.to_string())
}

/// `--validate`, after the run: the developer's tests on each focal mutant of the session's
/// pool, their kills per kind (`golden_kills`).
async fn developer_kills(
    req: &RunOptions,
    row: &Row,
    work: &Path,
    doc: &crate::engine::SessionDoc,
) -> Result<golden_kills::KindKills, String> {
    let repo = req.repo.clone().ok_or("no repository")?;
    let tests =
        crate::eval::golden_files(&repo, &work.join("test.patch")).map_err(|e| e.to_string())?;
    let ex = validation_executor(req, &repo, req.jobs.unwrap_or(2).max(1)).await?;
    let files: std::collections::BTreeSet<&str> = row
        .fail_to_pass
        .iter()
        .filter_map(|n| n.split("::").next())
        .collect();
    let files: Vec<&str> = files.into_iter().collect();
    golden_kills::measure(ex, doc, &tests.changed, &files, &tests.removed).await
}

/// `--validate`: the developer's test (from `test_patch`) must fail before the golden patch
/// and pass after it, for every FAIL_TO_PASS test. `Some(reason)` when it does not.
async fn validate(req: &RunOptions, row: &Row, work: &Path) -> Result<Option<String>, String> {
    if row.test_patch.trim().is_empty() || row.fail_to_pass.is_empty() {
        return Ok(Some(
            "the row has no test_patch or FAIL_TO_PASS to validate with".into(),
        ));
    }
    let repo = req.repo.clone().ok_or("no repository")?;
    let test_patch = work.join("test.patch");
    std::fs::write(&test_patch, &row.test_patch).map_err(|e| e.to_string())?;
    let tests = crate::eval::golden_files(&repo, &test_patch).map_err(|e| e.to_string())?;
    let golden =
        crate::eval::golden_files(&repo, &work.join("golden.patch")).map_err(|e| e.to_string())?;
    let ex = validation_executor(req, &repo, 1).await?;
    // Each test file the developer's patch touches, run on its own, before and after the fix.
    let files: std::collections::BTreeSet<&str> = row
        .fail_to_pass
        .iter()
        .filter_map(|n| n.split("::").next())
        .collect();
    for file in files {
        let Some(test) = tests.changed.iter().find(|f| f.rel_path == file) else {
            return Ok(Some(format!(
                "{file} (of FAIL_TO_PASS) is not in the test patch"
            )));
        };
        let others: Vec<exec::FileOverride> = tests
            .changed
            .iter()
            .filter(|f| f.rel_path != file)
            .cloned()
            .collect();
        let timeout = Duration::from_secs(120);
        let before = ExecRequest {
            test: test.clone(),
            overrides: others.clone(),
            removed: tests.removed.clone(),
            timeout,
            trace: vec![],
            tracer: Default::default(),
            per_test: false,
            select: vec![],
            stop_at_first_failure: false,
        };
        let mut after = before.clone();
        after.overrides.extend(golden.changed.iter().cloned());
        after.removed.extend(golden.removed.iter().cloned());
        let b = ex.run(before).await.map_err(|e| e.to_string())?;
        let a = ex.run(after).await.map_err(|e| e.to_string())?;
        for node in row.fail_to_pass.iter().filter(|n| n.starts_with(file)) {
            // A test named without its parameters stands for all of them.
            let status = |m: &BTreeMap<String, String>| -> Option<&'static str> {
                let mut found = m
                    .iter()
                    .filter(|(k, _)| *k == node || k.starts_with(&format!("{node}[")))
                    .map(|(_, v)| v.as_str())
                    .peekable();
                found.peek()?;
                Some(if found.all(|v| v == "PASSED") {
                    "PASSED"
                } else {
                    "FAILED"
                })
            };
            let was = status(&b.status_map);
            let is = status(&a.status_map);
            if was == Some("PASSED") || is != Some("PASSED") {
                return Ok(Some(format!(
                    "the developer's test {node} is {} before the fix and {} after; a sound \
                     instance has it fail, then pass",
                    was.unwrap_or("absent"),
                    is.unwrap_or("absent")
                )));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_an_instance_spent_comes_from_its_report_when_current_else_its_session() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(spent_in(d.path()), 0.0, "no session: nothing spent");
        let session = d.path().join(crate::outdir::SESSION_FILE);
        let report = d.path().join("report.json");
        std::fs::write(
            &session,
            r#"{"llm_calls": [{"cost_usd": 0.01}, {"cost_usd": 0.02}, {"cost_usd": null}]}"#,
        )
        .unwrap();
        let at = |p: &Path, secs: u64| {
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(t)
                .unwrap();
        };
        assert!((spent_in(d.path()) - 0.03).abs() < 1e-9);
        // The report of the run's end (its figure differs here only to tell which was read).
        std::fs::write(&report, r#"{"cost_usd": 0.5}"#).unwrap();
        at(&session, 1_000);
        at(&report, 1_000);
        assert_eq!(spent_in(d.path()), 0.5);
        // The run went on after it: the session is newer, and is summed.
        at(&session, 2_000);
        assert!((spent_in(d.path()) - 0.03).abs() < 1e-9);
    }

    fn batch(template: RunOptions) -> Batch {
        Batch {
            rows: "/rows.jsonl".into(),
            repos: "/repos".into(),
            out: "/out".into(),
            parallel: 1,
            validate: false,
            hints: false,
            template,
            model_name: "evootter".into(),
            budget_usd_total: None,
            llm_batch: None,
            only: None,
        }
    }

    fn row(extra: serde_json::Value) -> Row {
        let mut v = serde_json::json!({
            "instance_id": "pallets__click-2271", "repo": "pallets/click",
            "base_commit": "abc", "problem_statement": "x", "patch": "p"
        });
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        serde_json::from_value(v).unwrap()
    }

    /// A row's image, candidates and focal functions reach its run as the flags would.
    #[test]
    fn a_row_s_image_candidates_and_focal_functions_make_its_request() {
        let docker = RunOptions {
            backend: crate::engine::Backend::Docker,
            image: Some("sweb.eval.x86_64.{id}".into()),
            ..Default::default()
        };
        let work = Path::new("/out/.work/pallets__click-2271");
        let dir = Path::new("/out/pallets__click-2271");
        let plain = request_for(
            &batch(docker.clone()),
            0,
            &row(serde_json::json!({})),
            dir,
            work,
        )
        .unwrap();
        assert_eq!(
            plain.image.as_deref(),
            Some("sweb.eval.x86_64.pallets_1776_click-2271")
        );
        assert!(plain.initial_tests.is_none() && plain.focal.is_empty());
        let r = row(serde_json::json!({
            "docker_image": "swerebench/sweb.eval.x86_64.pallets_1776_click-2271",
            "initial_tests": {"test_issue.py": "def test_x():\n    assert False\n"},
            "focal": ["src/click/core.py::Context.invoke"],
        }));
        let req = request_for(&batch(docker.clone()), 0, &r, dir, work).unwrap();
        assert_eq!(
            req.image.as_deref(),
            Some("swerebench/sweb.eval.x86_64.pallets_1776_click-2271")
        );
        assert_eq!(req.initial_tests, Some(work.join("candidates")));
        assert_eq!(req.focal.len(), 1);
        let bad = row(serde_json::json!({"focal": ["no_colons_here"]}));
        let e = request_for(&batch(docker), 0, &bad, dir, work).unwrap_err();
        assert!(e.contains("`no_colons_here`"), "{e}");
        // The candidates are written as plain files; a path is refused.
        let d = tempfile::tempdir().unwrap();
        let tests = |name: &str| BTreeMap::from([(name.to_string(), "x = 1\n".to_string())]);
        write_candidates(&d.path().join("c"), &tests("test_a.py")).unwrap();
        assert!(d.path().join("c/test_a.py").is_file());
        let e = write_candidates(&d.path().join("c"), &tests("../evil.py")).unwrap_err();
        assert!(e.contains("plain file names"), "{e}");
        // The hints reach the issue only when asked for.
        let r = row(serde_json::json!({"hints_text": "Maybe the cache?"}));
        assert_eq!(issue_text(&r, false), "x");
        assert!(
            issue_text(&r, true).ends_with("discussion before the fix):\n\nMaybe the cache?\n")
        );
        assert_eq!(issue_text(&row(serde_json::json!({})), true), "x");
    }
}
