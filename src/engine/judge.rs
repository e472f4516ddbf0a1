//! The engine's side of `engine::witness`: after a generation's kill matrix, every mutant that
//! rescues one of its tests runs under the repository's own test modules, and its verdict
//! goes into the session before selection reads it.

use super::machine::{Engine, EngineError, Job};
use super::session::{Target, TestId, TestScore, exec_key};
use super::witness::{self, Verdict, Witnesses};
use crate::exec::{ExecRequest, FileOverride};
use std::collections::BTreeMap;
use std::time::Duration;

impl Engine {
    /// Judge the rescuers of `scores` that have no verdict yet. The witnesses are looked for
    /// at the first rescue of the run and kept in the session; their `c_old` runs (traced,
    /// for which mutants they can judge) happen once.
    pub(super) async fn judge_rescues(
        &mut self,
        scores: &BTreeMap<TestId, TestScore>,
    ) -> Result<(), EngineError> {
        let rescuers = witness::unjudged(&self.doc, scores);
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
            });
        }
        let modules = self
            .doc
            .witnesses
            .as_ref()
            .map_or(vec![], |w| w.modules.clone());
        let cap = Duration::from_secs_f64(self.doc.config.timeout_secs);
        let mut jobs = vec![];
        for w in &modules {
            let content = match sources.remove(&w.rel_path) {
                Some(text) => text,
                None => self.witness_source(&w.rel_path, &w.hash)?,
            };
            let mut targets = vec![Target::Old];
            targets.extend(rescuers.iter().cloned().map(Target::Mutant));
            for target in targets {
                if self
                    .doc
                    .executions
                    .contains_key(&exec_key(&w.hash, &target))
                {
                    continue;
                }
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
                jobs.push(Job {
                    test: w.rel_path.clone(),
                    hash: w.hash.clone(),
                    request: ExecRequest {
                        test: FileOverride {
                            rel_path: w.rel_path.clone(),
                            content: content.clone(),
                        },
                        overrides,
                        removed: vec![],
                        timeout: cap,
                        trace: self.traced_files(&target),
                        tracer: Default::default(),
                    },
                    target,
                    witness: true,
                });
            }
        }
        self.run_jobs(None, jobs, &mut Default::default()).await?;
        let spans = self.spans();
        for m in rescuers {
            let v = witness::verdict(&self.doc, &m, spans.get(&m))
                .unwrap_or(Verdict { kept: 0, of: 0 });
            witness::record(&mut self.doc, m, v);
        }
        Ok(())
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
