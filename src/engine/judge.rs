//! The engine's side of `engine::witness`: after a generation's kill matrix, every mutant that
//! rescues one of its tests runs under the repository's own test modules, and its verdict
//! goes into the session before selection reads it.

use super::machine::{Engine, EngineError, Job};
use super::session::{MutantId, Target, TestId, TestScore, exec_key};
use super::witness::{self, Verdict, Witnesses};
use crate::exec::{ExecRequest, FileOverride};
use std::collections::BTreeMap;
use std::time::Duration;

impl Engine {
    /// Whether verdicts on rescuers could change generation `g`'s cut. They rank only the
    /// tests that fail on `c_old` and get to the focal code (`selection::fitness_key`), which
    /// rank above every other: when the cut keeps all of them, no verdict changes what it
    /// keeps, and the witnesses' runs (a repository's test modules, traced) are not paid for.
    pub(super) fn rescues_can_decide(
        &self,
        g: usize,
        scores: &BTreeMap<TestId, TestScore>,
    ) -> Result<bool, EngineError> {
        let mut gen_ = self.generation(g)?.clone();
        gen_.scores = scores.clone();
        let facts = super::selection::TestFacts::of_generation(&self.doc, &gen_);
        let contenders = facts
            .iter()
            .filter(|f| !f.passes_old() && f.reaches_focal)
            .count();
        Ok(contenders > super::halving::survivors(facts.len()))
    }

    /// Judge the rescuers of `scores` that have no verdict yet. The witnesses are looked for
    /// at the first rescue of the run and kept in the session; their `c_old` runs (traced,
    /// for which mutants they can judge) happen once.
    pub(super) async fn judge_rescues(
        &mut self,
        scores: &BTreeMap<TestId, TestScore>,
    ) -> Result<(), EngineError> {
        // A callee's or caller's mutant is no surrogate fix (`witness::best_rescue`): not judged.
        let widened: std::collections::BTreeSet<String> = self
            .doc
            .pool
            .iter()
            .flat_map(|p| p.mutants.iter())
            .filter(|m| m.scope.is_some())
            .map(|m| m.id.clone())
            .collect();
        let rescuers: Vec<MutantId> = witness::unjudged(&self.doc, scores)
            .into_iter()
            .filter(|m| !widened.contains(m))
            .collect();
        if rescuers.is_empty() {
            return Ok(());
        }
        let mut sources = BTreeMap::new();
        if self.doc.witnesses.is_none() {
            let found = witness::find(&self.doc.inputs.repo, &self.doc.inputs.focal);
            // Which modules judge is in the session and the report; that none can is news.
            if found.is_empty() {
                self.note(
                    "a mutant rescues a test, but no test module of the repository imports a \
                     focal module: rescues are not judged by the repository's tests"
                        .to_string(),
                );
            }
            let modules = found
                .into_iter()
                .map(|(w, text)| {
                    sources.insert(w.rel_path.clone(), text);
                    w
                })
                .collect();
            self.doc.witnesses = Some(Witnesses {
                modules,
                verdicts: BTreeMap::new(),
                judges: BTreeMap::new(),
            });
        }
        let modules = self
            .doc
            .witnesses
            .as_ref()
            .map_or(vec![], |w| w.modules.clone());
        let cap = Duration::from_secs_f64(self.doc.config.timeout_secs);
        let mut contents = BTreeMap::new();
        for w in &modules {
            let content = match sources.remove(&w.rel_path) {
                Some(text) => text,
                None => self.witness_source(&w.rel_path, &w.hash)?,
            };
            contents.insert(w.rel_path.clone(), content);
        }
        // First the modules' c_old runs, traced test by test: which of their tests run a
        // mutant's lines decides which run on it.
        let spans = self.spans();
        let mut jobs = vec![];
        for w in &modules {
            if !self
                .doc
                .executions
                .contains_key(&exec_key(&w.hash, &Target::Old))
            {
                jobs.push(self.witness_job(w, &contents[&w.rel_path], Target::Old, vec![], cap)?);
            }
        }
        self.run_jobs(None, jobs, &mut Default::default()).await?;
        // Fitness asks of a test only whether some rescuer of it keeps every repository test
        // passing: once one does, the other rescuers of the same tests need not run. So the
        // rescuers are judged a few at a time, those rescuing the most tests first, each
        // skipped when every test it rescues has such a rescuer already.
        fn rescued<'a>(
            scores: &'a BTreeMap<TestId, TestScore>,
            m: &'a MutantId,
        ) -> impl Iterator<Item = &'a TestScore> {
            scores
                .values()
                .filter(move |s| !s.flaky && s.rescues.contains(m))
        }
        let mut order = rescuers;
        order.sort_by_key(|m| std::cmp::Reverse(rescued(scores, m).count()));
        let wave = self.executor.parallelism().max(1);
        let mut pending = order.into_iter().peekable();
        while pending.peek().is_some() {
            let mut batch = vec![];
            while batch.len() < wave {
                let Some(m) = pending.next() else { break };
                let needed = rescued(scores, &m).any(|s| {
                    witness::best_rescue(&self.doc, s).is_none_or(|(_, v)| v.permille() < 1000)
                });
                if needed {
                    batch.push(m);
                }
            }
            self.judge_batch(&modules, &contents, &batch, &spans, cap)
                .await?;
        }
        Ok(())
    }

    /// Runs the witness modules on the rescuers of `batch` (of each module only the tests that
    /// run the rescuer's lines on c_old) and records their verdicts.
    async fn judge_batch(
        &mut self,
        modules: &[witness::Witness],
        contents: &BTreeMap<String, String>,
        batch: &[MutantId],
        spans: &BTreeMap<MutantId, super::reach::Span>,
        cap: Duration,
    ) -> Result<(), EngineError> {
        let mut jobs = vec![];
        for w in modules {
            for m in batch {
                let target = Target::Mutant(m.clone());
                if self
                    .doc
                    .executions
                    .contains_key(&exec_key(&w.hash, &target))
                {
                    continue;
                }
                let select = match witness::covering(&self.doc, w, m, spans.get(m)) {
                    // No test of the module runs the mutant's lines: it keeps them all.
                    Some(tests) if tests.is_empty() => continue,
                    Some(tests) => tests,
                    None => vec![],
                };
                // A rescuer that breaks one of the repository's tests is no plausible fix
                // however many more it breaks: its run stops there. It gets what a candidate's
                // mutant run gets: ten times the module's c_old run and a second.
                let baseline = self
                    .doc
                    .executions
                    .get(&exec_key(&w.hash, &Target::Old))
                    .map_or(cap.as_secs_f64(), |e| e.duration_ms as f64 / 1000.0);
                let timeout =
                    Duration::from_secs_f64(self.doc.config.mutant_timeout_secs(baseline));
                jobs.push(self.witness_job(w, &contents[&w.rel_path], target, select, timeout)?);
            }
        }
        self.run_jobs(None, jobs, &mut Default::default()).await?;
        for m in batch {
            let v =
                witness::verdict(&self.doc, m, spans.get(m)).unwrap_or(Verdict { kept: 0, of: 0 });
            witness::record(&mut self.doc, m.clone(), v);
        }
        Ok(())
    }

    /// One run of witness module `w` (`content`) on `target`: of its tests `select` (all when
    /// empty); a `c_old` run is traced test by test.
    fn witness_job(
        &mut self,
        w: &witness::Witness,
        content: &str,
        target: Target,
        select: Vec<String>,
        cap: Duration,
    ) -> Result<Job, EngineError> {
        let overrides = match &target {
            Target::Mutant(id) => {
                let m = self.mutant(id)?;
                vec![FileOverride {
                    content: m.apply(self.source(&m.file)?),
                    rel_path: m.file,
                }]
            }
            _ => vec![],
        };
        Ok(Job {
            test: w.rel_path.clone(),
            hash: w.hash.clone(),
            request: ExecRequest {
                test: FileOverride {
                    rel_path: w.rel_path.clone(),
                    content: content.to_string(),
                },
                overrides,
                removed: vec![],
                timeout: cap,
                trace: self.traced_files(&target),
                tracer: Default::default(),
                per_test: target == Target::Old,
                select,
                stop_at_first_failure: target != Target::Old,
            },
            target,
            witness: true,
        })
    }

    /// Keeps which of the pool's mutants each `c_old`-passing test of witness module `w`
    /// runs the lines of, from its `c_old` run traced test by test.
    pub(super) fn record_judges(&mut self, w_hash: &str, result: &crate::exec::ExecResult) {
        let Some(by_test) = &result.trace_by_test else {
            return;
        };
        let Some(rel) = self
            .doc
            .witnesses
            .as_ref()
            .and_then(|ws| ws.modules.iter().find(|m| m.hash == w_hash))
            .map(|m| m.rel_path.clone())
        else {
            return;
        };
        let spans = self.spans();
        let order: Vec<Option<&super::reach::Span>> = self
            .doc
            .pool
            .iter()
            .flat_map(|p| p.mutants.iter())
            .map(|m| spans.get(&m.id))
            .collect();
        let passed = |s: &String| s.eq_ignore_ascii_case("passed");
        let judges: BTreeMap<String, String> = by_test
            .iter()
            .filter(|(id, _)| result.status_map.get(*id).is_some_and(passed))
            .filter_map(|(id, lines)| {
                let reached: Vec<bool> = order
                    .iter()
                    .map(|s| s.is_none_or(|s| super::reach::reaches(lines, s)))
                    .collect();
                Some((
                    witness::after_file(id)?.to_string(),
                    witness::bits(&reached),
                ))
            })
            .collect();
        if let Some(ws) = self.doc.witnesses.as_mut() {
            ws.judges.insert(rel, judges);
        }
    }

    /// A witness module's content, as it was when it was found: a repository changed under
    /// the run stops it, as a changed focal file does.
    fn witness_source(&self, rel_path: &str, hash: &str) -> Result<String, EngineError> {
        let path = self.doc.inputs.repo.join(rel_path);
        let text = std::fs::read_to_string(&path).map_err(|source| EngineError::ReadSource {
            file: path.display().to_string(),
            source,
        })?;
        if crate::hash::sha256_hex(&text) != hash {
            return Err(EngineError::RepoChanged {
                file: path.display().to_string(),
            });
        }
        Ok(text)
    }
}
