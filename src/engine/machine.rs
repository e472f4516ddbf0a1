//! The EvoOtter state machine. `Engine::step` runs the step named by `doc.phase`, records what
//! it learned in the session document, saves it, and moves the phase on:
//!
//! ```text
//! Localize -> Contextualize -> Generate -> Mutate [-> Repair, e-Otter only]
//!   -> Execute(0) -> Select(0) -> Crossover(0) -> Execute(1) -> Select(1) -> Crossover(1) -> ...
//!   -> Select(n) -> Evaluate -> Done
//! ```
//!
//! A run starts at the first step its inputs leave to the model: Localize without focal
//! functions, Contextualize without initial tests, else Mutate; a localized run that was given
//! its tests skips Contextualize and Generate. Crossover(g) is the gate (a workbench that
//! pauses before crossover waits there for the user's acts) and makes generation g+1; the
//! loop goes on until a selection keeps at most one test or a pin at the gate names it. Then
//! Evaluate runs when there is a golden patch, else Done follows.
//!
//! The engine never drives itself: the workbench (`crate::workbench`) calls `step` in its own
//! task on the commands its drivers send: the headless runner and `bench` ask for the whole
//! run, the TUI for one step, for the steps to the next gate, or to go on past a gate. A crash
//! loses at most the step in flight, and even then finished executions are saved as they
//! come and never run again (the cache is keyed by test content and target).

use super::config::{CrossoverStrategy, CutRule, MutantReach, SelectionStrategy};
use super::events::Event;
use super::halving::{mutants_for, survivors};
use super::kill;
use super::reach;
use super::selection::{self, SelectionParams, TestFacts};
use super::session::*;
use super::witness;
use crate::exec::{ExecRequest, ExecResult, Executor, FileOverride, Outcome};
use crate::llm::Model;
use crate::llm::price::PriceTable;
use crate::mutate::{self, Mutant};
use crate::prompts::Prompts;
use crate::rng::Rng;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Mutate(#[from] mutate::MutateError),
    #[error(transparent)]
    Exec(#[from] crate::exec::ExecError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Golden(#[from] crate::eval::EvalError),
    #[error(
        "{file} changed since this session started (its content hash differs); the mutants no \
         longer match it. Restore the file, or start a new run"
    )]
    RepoChanged { file: String },
    #[error("cannot read {file} from the repository: {source}")]
    ReadSource {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the {step} step needs the model and could not use it: {detail}")]
    Llm { step: String, detail: String },
    /// A budget would be crossed by the next call, which was not made (`llm::budget`).
    #[error("budget reached: {0}")]
    Budget(String),
    #[error("{0}")]
    State(String),
    /// The environment cannot run the repository's tests (see `environment`): fix it, then
    /// resume; the `c_old` runs that showed it are not kept.
    #[error(
        "{0}. The session is saved; once the environment is fixed, resume it (or pass \
         --keep-going to run on and have the report say so)"
    )]
    Environment(String),
}

impl EngineError {
    /// Whether `run --resume` can get past this error, and how: once its cause is fixed
    /// outside the session (a key exported, an endpoint back, a file restored, disk space
    /// freed), or with a larger budget. The others would repeat on resume: the run has to
    /// start over.
    pub fn resume(&self) -> Option<super::events::Resume> {
        use super::events::Resume;
        match self {
            EngineError::Exec(_)
            | EngineError::Session(_)
            | EngineError::Golden(_)
            | EngineError::RepoChanged { .. }
            | EngineError::ReadSource { .. }
            | EngineError::Llm { .. }
            | EngineError::Environment(_) => Some(Resume::AfterFix),
            EngineError::Budget(_) => Some(Resume::LargerBudget),
            EngineError::Mutate(_) | EngineError::State(_) => None,
        }
    }
}

/// Counters of the step in flight, for progress events.
#[derive(Default)]
pub(super) struct StepProgress {
    done: usize,
    total: usize,
    kills: usize,
    timeouts: usize,
}

impl StepProgress {
    /// Nothing done yet of `total` executions.
    pub(super) fn over(total: usize) -> Self {
        Self {
            total,
            ..Default::default()
        }
    }
}

/// One execution waiting to run.
pub(super) struct Job {
    pub(super) test: TestId,
    /// The test's content hash: with the target, the execution's key.
    pub(super) hash: String,
    pub(super) target: Target,
    pub(super) request: ExecRequest,
    /// A run of one of the repository's test modules (`engine::witness`), not of a
    /// candidate: recorded by its hash alone, outside the kill matrix and its progress.
    pub(super) witness: bool,
}

pub struct Engine {
    pub doc: SessionDoc,
    session_path: PathBuf,
    pub(super) executor: Arc<dyn Executor>,
    events: Option<UnboundedSender<Event>>,
    /// Original content of each focal file, read once and checked against the pool's hashes.
    sources: BTreeMap<String, String>,
    last_save: Instant,
    /// The model and prompts for the LLM steps; `None` runs without a model.
    pub(super) model: Option<Arc<dyn Model>>,
    pub(super) prompts: Option<Arc<Prompts>>,
    pub(super) prices: PriceTable,
    /// Limits in dollars checked before every call (`--budget-usd` and a batch's).
    pub(super) budgets: Vec<crate::llm::budget::Budget>,
    /// The last request sent, so a reply that proves unusable can be dropped from the cache.
    pub(super) last_request: Option<crate::llm::LlmRequest>,
    /// The highest execution `seq` so far (found once, then counted).
    last_seq: Option<u64>,
    /// Where a copy of the session goes after every save, for views.
    snapshots: Option<tokio::sync::watch::Sender<Arc<SessionDoc>>>,
}

impl Engine {
    pub fn new(
        doc: SessionDoc,
        session_path: PathBuf,
        executor: Arc<dyn Executor>,
        events: Option<UnboundedSender<Event>>,
    ) -> Self {
        Self {
            doc,
            session_path,
            executor,
            events,
            sources: BTreeMap::new(),
            last_save: Instant::now(),
            model: None,
            prompts: None,
            prices: PriceTable::builtin(),
            budgets: vec![],
            last_request: None,
            last_seq: None,
            snapshots: None,
        }
    }

    /// Give the engine a model for the LLM steps (selection fallback, `llm` strategies).
    pub fn with_model(mut self, model: Arc<dyn Model>, prompts: Arc<Prompts>) -> Self {
        self.model = Some(model);
        self.prompts = Some(prompts);
        self
    }

    pub fn set_prices(&mut self, prices: PriceTable) {
        self.prices = prices;
    }

    /// Every call from now on is checked against `budget` before it is made.
    pub fn add_budget(&mut self, budget: crate::llm::budget::Budget) {
        self.budgets.push(budget);
    }

    pub fn session_path(&self) -> &std::path::Path {
        &self.session_path
    }

    pub fn is_done(&self) -> bool {
        self.doc.phase == Phase::Done
    }

    pub(super) fn emit(&self, e: Event) {
        if let Some(tx) = &self.events {
            let _ = tx.send(e);
        }
    }

    pub(super) fn note(&mut self, message: String) {
        self.emit(Event::Note {
            message: message.clone(),
        });
        self.doc.notes.push(message);
    }

    /// Publish a snapshot of the session after every save (after each step, and at most
    /// every second while executions finish).
    pub fn set_snapshots(&mut self, tx: tokio::sync::watch::Sender<Arc<SessionDoc>>) {
        self.snapshots = Some(tx);
    }

    pub fn save(&mut self) -> Result<(), EngineError> {
        self.doc.save(&self.session_path)?;
        self.last_save = Instant::now();
        if let Some(tx) = &self.snapshots {
            tx.send_replace(Arc::new(self.doc.clone()));
        }
        Ok(())
    }

    /// Run the current step to completion, save, and return the phase that comes next.
    pub async fn step(&mut self) -> Result<Phase, EngineError> {
        let phase = self.doc.phase.clone();
        self.emit(Event::StepStarted {
            phase: phase.clone(),
        });
        let started = Instant::now();
        let result = match phase {
            Phase::Localize => self.step_localize().await,
            Phase::Contextualize => self.step_contextualize().await,
            Phase::Generate => self.step_generate().await,
            Phase::Mutate => self.step_mutate(),
            Phase::Repair => self.step_repair().await,
            Phase::Execute { generation } => self.step_execute(generation).await,
            Phase::Select { generation } => self.step_select(generation).await,
            Phase::Crossover { generation } => self.step_crossover(generation).await,
            Phase::Evaluate => self.step_evaluate().await,
            Phase::Done => return Ok(Phase::Done),
        };
        let secs = started.elapsed().as_secs_f64();
        let name = step_name(&phase);
        *self.doc.timings.by_step.entry(name.into()).or_default() += secs;
        self.doc.timings.wall_seconds += secs;
        // What the executor learned during the step (a Docker host that failed and where its
        // executions went) is the user's to know, and the session's to keep.
        for n in self.executor.notes() {
            if !self.doc.notes.contains(&n) {
                self.note(n);
            }
        }
        // Save even after a failed step: the executions it finished are kept.
        self.save()?;
        result?;
        if self.doc.phase == Phase::Done {
            self.emit(Event::Finished {
                final_test: self.doc.final_test.clone(),
            });
        }
        Ok(self.doc.phase.clone())
    }

    /// Step until done.
    pub async fn run_to_end(&mut self) -> Result<(), EngineError> {
        while !self.is_done() {
            self.step().await?;
        }
        Ok(())
    }

    // ---- Mutate -------------------------------------------------------------------------

    fn step_mutate(&mut self) -> Result<(), EngineError> {
        // The other systems of the paper select from the candidates as they run on c_old: no
        // pool, and so no mutant executed.
        if !self.doc.config.method.mutates() {
            self.doc.pool = Some(mutate::MutantPool::default());
            if self.doc.config.method == super::config::Method::Eotter {
                self.doc.phase = Phase::Repair;
            } else {
                let tests = self.doc.initial_population.clone();
                self.start_generation(0, tests);
            }
            return Ok(());
        }
        let cfg = &self.doc.config;
        let python = self.compiler();
        let pool = mutate::make_pool(mutate::PoolSpec {
            repo: &self.doc.inputs.repo,
            focal: &self.doc.inputs.focal,
            mutants: cfg.mutants,
            seed: cfg.seed,
            operators: cfg.operators,
            whole: cfg.reach != MutantReach::All,
            python: python.as_deref(),
            check_equivalence: !cfg.keep_equivalent_mutants,
            scope: cfg.mutant_scope,
            kinds: cfg.mutant_kinds.as_deref(),
        })?;
        if let Some(tce) = &pool.tce
            && (tce.skipped.is_some() || !tce.dropped.is_empty())
        {
            self.note(tce.summary(pool.mutants.len()));
        }
        self.emit(Event::MutantsReady {
            count: pool.mutants.len(),
            requested: pool.requested,
            exhausted: pool.exhausted,
            kinds: pool.kinds.clone(),
            operators: self.doc.config.operators,
        });
        let widened = pool.widened();
        if !widened.is_empty() {
            let each: Vec<String> = widened
                .iter()
                .map(|(s, n)| format!("{n} of {}s", s.as_str()))
                .collect();
            self.note(format!(
                "the focal functions yield {} mutants, fewer than the {} asked: the pool adds {} \
                 (marked callee or caller; --mutant-scope focal keeps to the focal functions)",
                pool.focal_count(),
                pool.requested,
                each.join(" and ")
            ));
        }
        if pool.mutants.len() < pool.requested {
            let msg = format!(
                "the focal functions {}yield only {} unique mutants of the {} asked for; the \
                 halving schedule uses {} (add focal functions with --focal for a larger pool)",
                if widened.is_empty() {
                    ""
                } else {
                    "and their callees and callers "
                },
                pool.mutants.len(),
                pool.requested,
                pool.mutants.len()
            );
            self.note(msg);
        }
        self.doc.pool = Some(pool);
        let tests = self.doc.initial_population.clone();
        self.start_generation(0, tests);
        Ok(())
    }

    /// The interpreter that compiles mutants for the equivalence check: the run's own for a
    /// local run; for a Docker run (whose interpreter is in the image) `python3` here, if any.
    fn compiler(&self) -> Option<std::path::PathBuf> {
        match &self.doc.config.docker {
            None => Some(std::path::PathBuf::from(&self.doc.config.python)),
            Some(_) => crate::exec::python_env::locate_on_path("python3"),
        }
    }

    /// The pool's ids in this session's sampling order: generation g runs the first
    /// `mutants_for(..)` of them, so each generation's sample contains the previous one and
    /// surviving tests reuse their earlier executions.
    fn sampling_order(&self) -> Vec<MutantId> {
        let mut ids: Vec<MutantId> = self
            .doc
            .pool
            .iter()
            .flat_map(|p| p.mutants.iter().map(|m| m.id.clone()))
            .collect();
        Rng::derived(self.doc.config.seed, "mutant-sample").shuffle(&mut ids);
        ids
    }

    /// Open generation `index` with `tests`, or finish when one test is left.
    pub(super) fn start_generation(&mut self, index: usize, tests: Vec<TestId>) {
        if tests.len() <= 1 {
            self.doc.final_test = tests.first().cloned();
            self.doc.phase = self.after_final();
            return;
        }
        let (mutants, reach) = self.sample(&tests);
        let (executions, cached) = self.workload(&tests, &mutants, u64::MAX);
        let provisional =
            self.doc.config.reach.traced() && tests.iter().any(|t| !self.has_run(t, &Target::Old));
        self.emit(Event::GenerationStarted {
            generation: index,
            tests: tests.len(),
            mutants: mutants.len(),
            executions,
            cached,
            provisional,
        });
        self.doc.generations.push(Generation {
            index,
            tests,
            mutants,
            executions,
            cached,
            scores: BTreeMap::new(),
            ranking: vec![],
            selected: vec![],
            selected_by: None,
            fitness_decided: None,
            tie_break: None,
            offspring: vec![],
            parents: None,
            reach,
            settling: vec![],
        });
        self.doc.phase = Phase::Execute { generation: index };
    }

    /// Generation `tests`' sample of the pool: the first `mutants_for(..)` of the sampling
    /// order, of the whole pool or (reach-aware) of the mutants some test reaches, with the
    /// pool's reach counts then. Tests not run yet count as reaching everything, so before a
    /// generation's baselines this is a provisional sample that `resample` replaces.
    fn sample(&self, tests: &[TestId]) -> (Vec<MutantId>, Option<reach::ReachCounts>) {
        let order = self.sampling_order();
        let (from, counts) = match self.doc.config.reach {
            MutantReach::All => (order, None),
            MutantReach::Reached | MutantReach::Discriminate => {
                let spans = self.spans();
                let (mut reached, counts) = reach::reached(&self.doc, tests, &order, &spans);
                if self.doc.config.reach == MutantReach::Discriminate {
                    let competitors = reach::competitors(&self.doc, tests);
                    let count = mutants_for(tests.len(), self.doc.config.mutants, reached.len());
                    reached =
                        reach::discriminating(&self.doc, &competitors, reached, &spans, count);
                }
                (reached, Some(counts))
            }
        };
        let count = mutants_for(tests.len(), self.doc.config.mutants, from.len());
        let cfg = &self.doc.config;
        let from = if cfg.witnesses && cfg.selection == SelectionStrategy::Mutation {
            // Evidence already found is looked for again: a mutant that rescued a test of an
            // earlier generation tests this one's survivors and offspring the same way, the
            // most plausible fixes first. At most half the sample, so the rest still
            // discriminates.
            let known = witness::known_rescuers(&self.doc, &self.doc.generations);
            witness::first_of(from, &known, count / 2)
        } else {
            from
        };
        (from.into_iter().take(count).collect(), counts)
    }

    /// Where each mutant of the pool changes its file, for what the tests reach.
    pub(super) fn spans(&self) -> BTreeMap<MutantId, reach::Span> {
        let pool = self.doc.pool.iter().flat_map(|p| p.mutants.iter());
        reach::spans(pool, |f| {
            std::fs::read_to_string(self.doc.inputs.repo.join(f)).ok()
        })
    }

    /// The mutants drawn to settle a tie at generation `g`'s cut: up to as many again as the
    /// sample, none of it, in the sampling's order with the tied tests as the competitors
    /// (with reach-aware sampling, only mutants some tied test reaches).
    fn settling_sample(&self, gen_: &Generation, tied: &[TestId]) -> Vec<MutantId> {
        let order: Vec<MutantId> = self
            .sampling_order()
            .into_iter()
            .filter(|id| !gen_.mutants.contains(id))
            .collect();
        let from = match self.doc.config.reach {
            MutantReach::All => order,
            MutantReach::Reached | MutantReach::Discriminate => {
                let spans = self.spans();
                let (reached, _) = reach::reached(&self.doc, tied, &order, &spans);
                if self.doc.config.reach == MutantReach::Discriminate {
                    let count = gen_.mutants.len().min(reached.len());
                    reach::discriminating(&self.doc, tied, reached, &spans, count)
                } else {
                    reached
                }
            }
        };
        from.into_iter().take(gen_.mutants.len().max(1)).collect()
    }

    /// When generation `g`'s sample leaves tests tied across the cut under `scores` (fitness
    /// could not choose), more mutants are drawn once (`settling_sample`) and every test of
    /// the generation runs on them, so that mutation, not a tie-break, decides where it can.
    /// The drawn mutants join the generation's sample and are named in `settling`. Whether
    /// any were drawn, so that the scores are to be made again.
    async fn settle_tie(
        &mut self,
        g: usize,
        scores: &BTreeMap<TestId, TestScore>,
        progress: &mut StepProgress,
    ) -> Result<bool, EngineError> {
        let cfg = &self.doc.config;
        if !cfg.settle_ties || cfg.selection != SelectionStrategy::Mutation {
            return Ok(false);
        }
        let gen_ = self.generation(g)?.clone();
        if !gen_.settling.is_empty() {
            // Drawn before a stop: what of it has not run yet runs now.
            self.execute_mutants(g, &gen_.tests, &gen_.tests, progress)
                .await?;
            return Ok(true);
        }
        let scored = Generation {
            scores: scores.clone(),
            ..gen_.clone()
        };
        let facts = TestFacts::of_generation(&self.doc, &scored);
        let params = SelectionParams::of(cfg, g);
        let s = selection::select(&facts, survivors(facts.len()), params);
        let Some(tie) = s.tie_break.filter(|_| !s.fitness_decided) else {
            return Ok(false);
        };
        let extra = self.settling_sample(&gen_, &tie.tied);
        if extra.is_empty() {
            return Ok(false);
        }
        let mut mutants = gen_.mutants.clone();
        mutants.extend(extra.iter().cloned());
        let (executions, _) = self.workload(&gen_.tests, &mutants, u64::MAX);
        self.emit(Event::TieSettling {
            generation: g,
            tied: tie.tied,
            mutants: extra.len(),
        });
        progress.total += executions - gen_.executions;
        let gm = &mut self.doc.generations[g];
        gm.mutants = mutants;
        gm.executions = executions;
        gm.settling = extra;
        self.execute_mutants(g, &gen_.tests, &gen_.tests, progress)
            .await?;
        Ok(true)
    }

    /// Executions `tests` x (baselines + `mutants`) needs, and how many of them had run by
    /// execution `seq` (the cached ones, when that is where the generation started).
    pub(super) fn workload(
        &self,
        tests: &[TestId],
        mutants: &[MutantId],
        seq: u64,
    ) -> (usize, usize) {
        let targets = self.targets(mutants);
        let cached = tests
            .iter()
            .map(|t| {
                targets
                    .iter()
                    .filter(|tg| self.doc.execution(t, tg).is_some_and(|e| e.seq <= seq))
                    .count()
            })
            .sum();
        (tests.len() * targets.len(), cached)
    }

    /// After generation `g`'s baselines (traced): its sample drawn again from what its tests
    /// reach, and the user told how the pool splits.
    /// `seq`: the last execution before the generation's own baselines.
    fn resample(&mut self, g: usize, seq: u64) -> Result<(), EngineError> {
        let tests = self.generation(g)?.tests.clone();
        let (mutants, counts) = self.sample(&tests);
        let (executions, cached) = self.workload(&tests, &mutants, seq);
        if let Some(c) = &counts {
            self.emit(Event::MutantsSampled {
                generation: g,
                mutants: mutants.len(),
                reached: c.reached_total(),
                unreached: c.unreached_total(),
                unreached_kinds: c.unreached.clone(),
                executions,
                cached,
            });
        }
        let gen_ = &mut self.doc.generations[g];
        gen_.mutants = mutants;
        gen_.executions = executions;
        gen_.cached = cached;
        gen_.reach = counts;
        // A tie is settled again from this sample (the same draw: same seed, same runs).
        gen_.settling.clear();
        Ok(())
    }

    /// Every target a test of a generation runs against: the baselines, then the mutants.
    fn targets(&self, mutants: &[MutantId]) -> Vec<Target> {
        let mut v = Target::baselines(&self.doc.config);
        v.extend(mutants.iter().cloned().map(Target::Mutant));
        v
    }

    fn after_final(&self) -> Phase {
        if self.doc.inputs.golden_patch.is_some() {
            Phase::Evaluate
        } else {
            Phase::Done
        }
    }

    // ---- Execute ------------------------------------------------------------------------

    pub(super) fn generation(&self, index: usize) -> Result<&Generation, EngineError> {
        self.doc
            .generations
            .get(index)
            .ok_or_else(|| EngineError::State(format!("generation {index} was never started")))
    }

    pub(super) fn test_file(&self, test: &TestId) -> FileOverride {
        let c = &self.doc.tests[test];
        FileOverride {
            rel_path: c.rel_path.clone(),
            content: c.source.clone(),
        }
    }

    /// The original content of a focal file, checked against the hash taken at Mutate.
    pub(super) fn source(&mut self, file: &str) -> Result<&str, EngineError> {
        if !self.sources.contains_key(file) {
            let path = self.doc.inputs.repo.join(file);
            let text =
                std::fs::read_to_string(&path).map_err(|source| EngineError::ReadSource {
                    file: path.display().to_string(),
                    source,
                })?;
            let expected = self.doc.pool.as_ref().and_then(|p| p.file_hashes.get(file));
            if expected.is_some_and(|h| *h != crate::hash::sha256_hex(&text)) {
                return Err(EngineError::RepoChanged {
                    file: path.display().to_string(),
                });
            }
            self.sources.insert(file.to_string(), text);
        }
        Ok(&self.sources[file])
    }

    pub(super) fn mutant(&self, id: &str) -> Result<Mutant, EngineError> {
        self.doc
            .pool
            .as_ref()
            .and_then(|p| p.mutants.iter().find(|m| m.id == id))
            .cloned()
            .ok_or_else(|| EngineError::State(format!("mutant {id} is not in the pool")))
    }

    fn has_run(&self, test: &TestId, target: &Target) -> bool {
        self.doc.execution(test, target).is_some()
    }

    fn hangs_on_old(&self, test: &TestId) -> bool {
        self.doc
            .execution(test, &Target::Old)
            .is_some_and(|e| e.outcome == Outcome::Timeout)
    }

    /// The timeout for the remaining runs of a test that hung on `c_old`: what the slowest
    /// test of the generation that did finish needed there, doubled, plus a second. A mutant
    /// that makes the hanging test finish within that still shows; the others no longer wait
    /// the full cap again, each.
    fn hang_bound(&self, tests: &[TestId]) -> Duration {
        let cap = self.doc.config.timeout_secs;
        let slowest = tests
            .iter()
            .filter_map(|t| self.doc.execution(t, &Target::Old))
            .filter(|e| e.outcome != Outcome::Timeout)
            .map(|e| e.duration_ms as f64 / 1000.0)
            .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
        let secs = match slowest {
            Some(s) => (s + 1.0) * 2.0,
            // Every test hangs: nothing to measure against.
            None => 5.0,
        };
        Duration::from_secs_f64(secs.max(2.0).min(cap))
    }

    /// Runs `tests` on generation `g`'s baselines and mutants, skipping what has run.
    /// `peers`: the generation's tests, whose `c_old` times bound a hanging test's runs;
    /// `total`: the executions the progress counts against.
    pub(super) async fn execute(
        &mut self,
        g: usize,
        tests: &[TestId],
        peers: &[TestId],
        total: usize,
    ) -> Result<(), EngineError> {
        let mut progress = self.progress(g, tests, total)?;
        self.execute_baselines(g, tests, peers, &mut progress)
            .await?;
        self.execute_mutants(g, tests, peers, &mut progress).await
    }

    /// Progress over `total` executions of `tests` in generation `g`, counting what has run.
    fn progress(
        &self,
        g: usize,
        tests: &[TestId],
        total: usize,
    ) -> Result<StepProgress, EngineError> {
        let targets = self.targets(&self.generation(g)?.mutants);
        // What already ran counts, its kills too, so the figures agree with the matrix.
        let cached_kill = |t: &TestId, tg: &Target| {
            let old = self.doc.execution(t, &Target::Old)?;
            let run = self.doc.execution(t, tg)?;
            matches!(tg, Target::Mutant(_)).then(|| kill::cell(old, run).is_kill())
        };
        Ok(StepProgress {
            total,
            done: tests
                .iter()
                .map(|t| targets.iter().filter(|tg| self.has_run(t, tg)).count())
                .sum(),
            kills: tests
                .iter()
                .map(|t| {
                    targets
                        .iter()
                        .filter(|tg| self.has_run(t, tg) && cached_kill(t, tg) == Some(true))
                        .count()
                })
                .sum(),
            ..Default::default()
        })
    }

    /// The focal files a baseline traces: with reach-aware sampling, every `c_old` run
    /// records the lines of them it executes.
    pub(super) fn traced_files(&self, target: &Target) -> Vec<String> {
        if !self.doc.config.reach.traced() || *target != Target::Old {
            return vec![];
        }
        // The focal files, and the files a widened pool's neighbours are in (their callers
        // may live in other modules).
        let pooled = self
            .doc
            .pool
            .iter()
            .flat_map(|p| &p.mutants)
            .map(|m| &m.file);
        let mut files: Vec<String> = self
            .doc
            .inputs
            .focal
            .iter()
            .map(|f| &f.file)
            .chain(pooled)
            .cloned()
            .collect();
        files.sort();
        files.dedup();
        files
    }

    async fn execute_baselines(
        &mut self,
        g: usize,
        tests: &[TestId],
        peers: &[TestId],
        progress: &mut StepProgress,
    ) -> Result<(), EngineError> {
        let cap = Duration::from_secs_f64(self.doc.config.timeout_secs);

        // Baselines first: mutant timeouts are derived from them. The repeat runs after the
        // first run, so a test already known to hang is not waited for twice at the full cap.
        for target in Target::baselines(&self.doc.config) {
            let mut baselines = Vec::new();
            for t in tests {
                if self.has_run(t, &target) {
                    continue;
                }
                let timeout = match target {
                    Target::OldRepeat if self.hangs_on_old(t) => self.hang_bound(peers),
                    _ => cap,
                };
                baselines.push(Job {
                    test: t.clone(),
                    hash: self.doc.tests[t].hash.clone(),
                    target: target.clone(),
                    request: ExecRequest {
                        test: self.test_file(t),
                        overrides: vec![],
                        removed: vec![],
                        timeout,
                        trace: self.traced_files(&target),
                        tracer: Default::default(),
                        per_test: false,
                        select: vec![],
                        stop_at_first_failure: false,
                    },
                    witness: false,
                });
            }
            self.run_jobs(Some(g), baselines, progress).await?;
        }
        Ok(())
    }

    async fn execute_mutants(
        &mut self,
        g: usize,
        tests: &[TestId],
        peers: &[TestId],
        progress: &mut StepProgress,
    ) -> Result<(), EngineError> {
        let gen_ = self.generation(g)?.clone();
        let mut jobs = Vec::new();
        for t in tests {
            let timeout = if self.hangs_on_old(t) {
                self.hang_bound(peers)
            } else {
                let base = Target::baselines(&self.doc.config)
                    .iter()
                    .filter_map(|tg| self.doc.execution(t, tg))
                    .map(|e| e.duration_ms as f64 / 1000.0)
                    .fold(0.0, f64::max);
                Duration::from_secs_f64(self.doc.config.mutant_timeout_secs(base).max(1.0))
            };
            for id in &gen_.mutants {
                let target = Target::Mutant(id.clone());
                if self.has_run(t, &target) {
                    continue;
                }
                let m = self.mutant(id)?;
                let content = m.apply(self.source(&m.file)?);
                jobs.push(Job {
                    test: t.clone(),
                    hash: self.doc.tests[t].hash.clone(),
                    target,
                    request: ExecRequest {
                        test: self.test_file(t),
                        overrides: vec![FileOverride {
                            rel_path: m.file.clone(),
                            content,
                        }],
                        removed: vec![],
                        timeout,
                        trace: vec![],
                        tracer: Default::default(),
                        per_test: false,
                        select: vec![],
                        stop_at_first_failure: false,
                    },
                    witness: false,
                });
            }
        }
        self.run_jobs(Some(g), jobs, progress).await?;
        Ok(())
    }

    async fn step_execute(&mut self, g: usize) -> Result<(), EngineError> {
        let tests = self.generation(g)?.tests.clone();
        let mut progress = self.progress(g, &tests, self.generation(g)?.executions)?;
        // What ran before this step counts as cached in the drawn sample.
        let seq = self
            .doc
            .executions
            .values()
            .map(|e| e.seq)
            .max()
            .unwrap_or(0);
        self.execute_baselines(g, &tests, &tests, &mut progress)
            .await?;
        if g == 0 {
            self.check_environment(&tests)?;
        }
        if self.doc.config.reach.traced() {
            self.resample(g, seq)?;
            progress = self.progress(g, &tests, self.generation(g)?.executions)?;
        }
        self.execute_mutants(g, &tests, &tests, &mut progress)
            .await?;
        let mut scores = self.score_generation(self.generation(g)?);
        if self.settle_tie(g, &scores, &mut progress).await? {
            scores = self.score_generation(self.generation(g)?);
        }
        if self.doc.config.witnesses && self.doc.config.selection == SelectionStrategy::Mutation {
            // Part of this step's time, kept apart too: what the witnesses cost a run.
            let started = std::time::Instant::now();
            if self.rescues_can_decide(g, &scores)? {
                self.judge_rescues(&scores).await?;
            }
            *self
                .doc
                .timings
                .by_step
                .entry(WITNESS_STEP.into())
                .or_default() += started.elapsed().as_secs_f64();
        }
        let gen_ = self.generation(g)?.clone();
        self.check_force_failure(&gen_, &scores);
        for (t, sc) in &scores {
            let msg = format!(
                "{t} ({}) logs differently in two runs on c_old (flaky): its kills are not counted",
                self.doc.tests[t].name
            );
            if sc.flaky && !self.doc.notes.contains(&msg) {
                self.note(msg);
            }
        }
        self.doc.generations[g].scores = scores;
        self.doc.phase = Phase::Select { generation: g };
        Ok(())
    }

    /// Every test of the initial population erroring on `c_old` the same environmental way
    /// stops the run at once, naming it (its `c_old` runs measured the environment, so they
    /// are not kept: a resume after the fix runs them again); with `--keep-going` the run goes
    /// on and the session and report say so.
    pub(super) fn check_environment(&mut self, tests: &[TestId]) -> Result<(), EngineError> {
        let Some(broken) = super::environment::broken(&self.doc, tests) else {
            return Ok(());
        };
        let line = broken.to_string();
        if self.doc.config.keep_going {
            if self.doc.environment_error.is_none() {
                self.note(format!("{line} (--keep-going: the run goes on)"));
                self.doc.environment_error = Some(line);
            }
            return Ok(());
        }
        for t in tests {
            let hash = self.doc.tests[t].hash.clone();
            for target in [Target::Old, Target::OldRepeat] {
                self.doc.executions.remove(&exec_key(&hash, &target));
            }
        }
        Err(EngineError::Environment(line))
    }

    pub(super) fn score_generation(&self, gen_: &Generation) -> BTreeMap<TestId, TestScore> {
        let mut out = BTreeMap::new();
        for t in &gen_.tests {
            let Some(old) = self.doc.execution(t, &Target::Old) else {
                continue;
            };
            let runs: Vec<(&MutantId, &Execution)> = gen_
                .mutants
                .iter()
                .filter_map(|id| {
                    self.doc
                        .execution(t, &Target::Mutant(id.clone()))
                        .map(|e| (id, e))
                })
                .collect();
            let mut score = kill::score(old, runs);
            score.flaky = self
                .doc
                .execution(t, &Target::OldRepeat)
                .is_some_and(|again| again.normalized_log != old.normalized_log);
            out.insert(t.clone(), score);
        }
        out
    }

    /// A force-failure mutant raises at the top of its function, so any test that calls the
    /// function kills it. When none does, the tests never reach that function in the working
    /// copy: they call something else, or import an installed copy of the package. Say so,
    /// since every kill count of that function is then meaningless.
    fn check_force_failure(&mut self, gen_: &Generation, scores: &BTreeMap<TestId, TestScore>) {
        let unreached: Vec<String> = gen_
            .mutants
            .iter()
            .filter_map(|id| self.mutant(id).ok())
            .filter(|m| m.kind == mutate::MutantKind::ForceFailure)
            .filter(|m| !scores.values().any(|s| s.kills.contains(&m.id)))
            .map(|m| format!("{}::{}", m.file, m.function))
            .collect();
        for f in unreached {
            let msg = format!(
                "no test of generation {} killed the force-failure mutant of {f}: the candidates \
                 never call it, or they import another copy of the package (an installed one?) \
                 instead of the repository's",
                gen_.index
            );
            if !self.doc.notes.contains(&msg) {
                self.note(msg);
            }
        }
    }

    /// Run jobs `parallelism()` at a time, recording each result as it arrives.
    pub(super) async fn run_jobs(
        &mut self,
        generation: Option<usize>,
        jobs: Vec<Job>,
        progress: &mut StepProgress,
    ) -> Result<(), EngineError> {
        let width = self.executor.parallelism().max(1);
        let mut pending = jobs.into_iter();
        let mut set = tokio::task::JoinSet::new();
        let executor = Arc::clone(&self.executor);
        let events = self.events.clone();
        let spawn = |set: &mut tokio::task::JoinSet<_>, job: Job| {
            let ex = Arc::clone(&executor);
            if let Some(tx) = events.as_ref().filter(|_| !job.witness) {
                let _ = tx.send(Event::ExecutionStarted {
                    generation,
                    key: exec_key(&job.hash, &job.target),
                    test: job.test.clone(),
                    target: job.target.clone(),
                });
            }
            set.spawn(async move {
                let timeout = job.request.timeout;
                let partial = !job.request.select.is_empty() || job.request.stop_at_first_failure;
                let r = ex.run(job.request).await;
                (
                    job.test,
                    job.witness.then_some((job.hash, partial)),
                    job.target,
                    timeout,
                    r,
                )
            });
        };
        for job in pending.by_ref().take(width) {
            spawn(&mut set, job);
        }
        while let Some(joined) = set.join_next().await {
            let (test, witness, target, timeout, result) =
                joined.map_err(|e| EngineError::State(format!("execution task failed: {e}")))?;
            let result = result?;
            if let Some((hash, partial)) = witness {
                if target == Target::Old {
                    self.record_judges(&hash, &result);
                }
                let mut exec = self.execution_of(&hash, &target, timeout, result);
                exec.partial = partial;
                self.doc.executions.insert(exec_key(&hash, &target), exec);
                if let Some(job) = pending.next() {
                    spawn(&mut set, job);
                }
                continue;
            }
            let outcome = result.outcome;
            let (key, cell) = self.record(&test, &target, timeout, result);
            let killed = cell.map(kill::Cell::is_kill);
            progress.kills += usize::from(killed == Some(true));
            progress.timeouts += usize::from(outcome == Outcome::Timeout);
            progress.done += 1;
            self.emit(Event::ExecutionDone {
                generation,
                test,
                target,
                outcome,
                killed,
                cell,
                key,
                done: progress.done,
                total: progress.total,
                kills: progress.kills,
                timeouts: progress.timeouts,
            });
            if let Some(job) = pending.next() {
                spawn(&mut set, job);
            }
            if self.last_save.elapsed() > Duration::from_secs(1) {
                self.save()?;
            }
        }
        Ok(())
    }

    /// Store one result; return its key and, for a mutant run, its kill-matrix cell.
    fn record(
        &mut self,
        test: &TestId,
        target: &Target,
        timeout: Duration,
        r: ExecResult,
    ) -> (String, Option<kill::Cell>) {
        let hash = self.doc.tests[test].hash.clone();
        let exec = self.execution_of(&hash, target, timeout, r);
        if *target == Target::Old {
            self.note_old_run(test, &exec);
        }
        let cell = match target {
            Target::Mutant(_) => self
                .doc
                .execution(test, &Target::Old)
                .map(|old| kill::cell(old, &exec)),
            _ => None,
        };
        let key = exec_key(&hash, target);
        self.doc.executions.insert(key.clone(), exec);
        (key, cell)
    }

    /// One result as the session keeps it: its logs interned, its place in the order of
    /// executions, its trace if it was a `c_old` run.
    fn execution_of(
        &mut self,
        hash: &str,
        target: &Target,
        timeout: Duration,
        r: ExecResult,
    ) -> Execution {
        let raw = self.doc.intern_log(&r.raw_log);
        let norm = self.doc.intern_log(&r.normalized_log);
        // What the test's cases do on c_old decides which part of any of its logs counts.
        let failing_part = match target {
            Target::Old => Some(kill::failing_part_hash(&r.normalized_log, &r.status_map)),
            _ => self
                .doc
                .executions
                .get(&exec_key(hash, &Target::Old))
                .map(|old| kill::failing_part_hash(&r.normalized_log, &old.status_map)),
        };
        let seq = *self.last_seq.get_or_insert_with(|| {
            self.doc
                .executions
                .values()
                .map(|e| e.seq)
                .max()
                .unwrap_or(0)
        }) + 1;
        self.last_seq = Some(seq);
        Execution {
            test_hash: hash.to_string(),
            target: target.clone(),
            outcome: r.outcome,
            failure_kind: r.failure_kind,
            exception: r.exception,
            exit_code: r.exit_code,
            raw_log: raw,
            normalized_log: norm,
            status_map: r.status_map,
            counts: r.counts,
            duration_ms: r.duration.as_millis() as u64,
            timeout_ms: timeout.as_millis() as u64,
            seq,
            pid: std::process::id(),
            changed: r.changed,
            changed_outside: r.changed_outside,
            denied: r.denied,
            lines: if *target == Target::Old {
                r.trace
            } else {
                None
            },
            failing_part,
            partial: false,
        }
    }

    /// What a test's first `c_old` run revealed that the user must hear about at once: it
    /// hangs, it changed its working copy, or the sandbox stopped it.
    fn note_old_run(&mut self, test: &TestId, e: &Execution) {
        let name = self.doc.tests[test].name.clone();
        let mut msgs = vec![];
        if e.outcome == Outcome::Timeout {
            msgs.push(format!(
                "{test} ({name}) timed out on c_old after {:.0} s: it hangs; its other runs are \
                 bounded by what the other tests need",
                e.timeout_ms as f64 / 1000.0
            ));
        }
        if !e.changed.is_empty() {
            msgs.push(format!(
                "{test} ({name}) changed its working copy on c_old ({}); every change is undone \
                 before the next run, so no other test sees it",
                e.changed.join(", ")
            ));
        }
        if !e.changed_outside.is_empty() {
            msgs.push(format!(
                "{test} ({name}) wrote outside its working copy on c_old ({}); removed before \
                 the next run, so no other test sees it",
                e.changed_outside.join(", ")
            ));
        }
        for d in &e.denied {
            msgs.push(format!("{test} ({name}): {d}"));
        }
        for m in msgs {
            if !self.doc.notes.contains(&m) {
                self.note(m);
            }
        }
    }

    // ---- Select -------------------------------------------------------------------------

    async fn step_select(&mut self, g: usize) -> Result<(), EngineError> {
        let gen_ = self.generation(g)?.clone();
        let facts = TestFacts::of_generation(&self.doc, &gen_);
        let cfg = &self.doc.config;
        let params = SelectionParams::of(cfg, g);
        // A selector picks the one test at once; EvoOtter keeps the better half.
        let keep = if cfg.method.mutates() {
            survivors(facts.len())
        } else {
            1
        };
        let mut s = selection::select(&facts, keep, params);
        if cfg.selection == SelectionStrategy::Llm {
            let (chosen, by_model) = self.llm_choose(&gen_.tests, keep, &s.ranking).await?;
            s.ranking = with_selected(&s.ranking, &chosen);
            s.selected = chosen;
            s.selected_by = if by_model {
                CutRule::Llm
            } else {
                CutRule::Otter
            };
        } else if self.model.is_some()
            && let Some(tie) = s.tie_break.clone().filter(|t| t.by == CutRule::Otter)
        {
            // Fitness and rescues left a tie at the cut: the model decides it (paper III-C).
            let rescues = |t: &TestId| {
                facts
                    .iter()
                    .find(|f| &f.id == t)
                    .map_or(0, |f| f.rescues * usize::from(params.rescue_tiebreak))
            };
            let group: Vec<TestId> = s
                .ranking
                .iter()
                .filter(|t| tie.tied.contains(t))
                .cloned()
                .collect();
            let boundary = rescues(&group[tie.slots - 1]);
            let above: Vec<TestId> = group
                .iter()
                .filter(|t| rescues(t) > boundary)
                .cloned()
                .collect();
            let contenders: Vec<TestId> = group
                .iter()
                .filter(|t| rescues(t) == boundary)
                .cloned()
                .collect();
            let (picks, by_model) = self
                .llm_choose(&contenders, tie.slots - above.len(), &contenders)
                .await?;
            let mut selected: Vec<TestId> = s
                .selected
                .iter()
                .filter(|t| !tie.tied.contains(t))
                .cloned()
                .collect();
            selected.extend(above);
            selected.extend(picks);
            s.ranking = with_selected(&s.ranking, &selected);
            s.selected = selected;
            if by_model {
                s.selected_by = CutRule::Llm;
                if let Some(t) = s.tie_break.as_mut() {
                    t.by = CutRule::Llm;
                }
            }
        }
        self.emit(Event::Selected {
            generation: g,
            selected: s.selected.clone(),
            selected_by: s.selected_by,
            fitness_decided: s.fitness_decided,
        });
        let gm = &mut self.doc.generations[g];
        gm.ranking = s.ranking;
        gm.selected = s.selected.clone();
        gm.selected_by = Some(s.selected_by);
        gm.fitness_decided = Some(s.fitness_decided);
        gm.tie_break = s.tie_break;
        if s.selected.len() <= 1 {
            self.doc.final_test = s.selected.first().cloned();
            self.doc.phase = self.after_final();
        } else {
            self.doc.phase = Phase::Crossover { generation: g };
        }
        Ok(())
    }

    // ---- Crossover ----------------------------------------------------------------------

    async fn step_crossover(&mut self, g: usize) -> Result<(), EngineError> {
        // A pin ends the run here with the user's choice: evaluating it is all that is left.
        if let Some(test) = self.doc.pinned(g) {
            self.doc.final_test = Some(test);
            self.doc.phase = if self.doc.inputs.golden_patch.is_some() {
                Phase::Evaluate
            } else {
                Phase::Done
            };
            return Ok(());
        }
        // The survivors, as the user curated them at the gate (if anyone did).
        let parents = self.doc.parents(g);
        let offspring = match self.doc.config.crossover {
            // The survivors go on unchanged (the paper's "Mutation" row of Table III).
            CrossoverStrategy::None => parents,
            CrossoverStrategy::Llm => self.llm_crossover(g, &parents).await?,
        };
        self.doc.generations[g].offspring = offspring.clone();
        self.start_generation(g + 1, offspring);
        Ok(())
    }

    // ---- Evaluate -----------------------------------------------------------------------

    /// F2P of the final test and of every other test, against the golden patch. Runs after
    /// selection is over; nothing here feeds back into it.
    async fn step_evaluate(&mut self) -> Result<(), EngineError> {
        let Some(patch) = self.doc.inputs.golden_patch.clone() else {
            self.doc.phase = Phase::Done;
            return Ok(());
        };
        let golden = crate::eval::golden_files(&self.doc.inputs.repo, &patch)?;
        let cap = Duration::from_secs_f64(self.doc.config.timeout_secs);
        let tests: Vec<TestId> = self.doc.tests.keys().cloned().collect();
        let mut jobs = Vec::new();
        for t in &tests {
            for target in [Target::Old, Target::Golden] {
                if self.has_run(t, &target) {
                    continue;
                }
                let request = if target == Target::Golden {
                    golden.request(self.test_file(t), cap)
                } else {
                    crate::eval::PatchedFiles::default().request(self.test_file(t), cap)
                };
                jobs.push(Job {
                    test: t.clone(),
                    hash: self.doc.tests[t].hash.clone(),
                    target,
                    request,
                    witness: false,
                });
            }
        }
        let mut progress = StepProgress::over(jobs.len());
        self.run_jobs(None, jobs, &mut progress).await?;
        for t in &tests {
            let old = self.doc.execution(t, &Target::Old).map(|e| e.outcome);
            let new = self.doc.execution(t, &Target::Golden).map(|e| e.outcome);
            if let (Some(old), Some(new)) = (old, new) {
                let f2p = F2p::from_outcomes(old, new);
                if self.doc.final_test.as_ref() == Some(t) {
                    self.emit(Event::Evaluated {
                        test: t.clone(),
                        f2p: f2p.clone(),
                    });
                }
                self.doc.evaluation.insert(t.clone(), f2p);
            }
        }
        self.doc.phase = Phase::Done;
        Ok(())
    }
}

/// `ranking` reordered so that `selected` comes first, in its order.
fn with_selected(ranking: &[TestId], selected: &[TestId]) -> Vec<TestId> {
    let mut out = selected.to_vec();
    out.extend(ranking.iter().filter(|t| !selected.contains(t)).cloned());
    out
}

/// The key of `Timings::by_step` that holds the witnesses' share of the execute steps.
pub const WITNESS_STEP: &str = "witnesses";

fn step_name(p: &Phase) -> &'static str {
    match p {
        Phase::Localize => "localize",
        Phase::Contextualize => "contextualize",
        Phase::Generate => "generate",
        Phase::Mutate => "mutate",
        Phase::Repair => "repair",
        Phase::Execute { .. } => "execute",
        Phase::Select { .. } => "select",
        Phase::Crossover { .. } => "crossover",
        Phase::Evaluate => "evaluate",
        Phase::Done => "done",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::explain::explain_cut;
    use crate::testkit::tied_session;

    #[test]
    fn a_tie_the_sample_leaves_is_settled_by_more_mutants_run_on_every_test() {
        let (off, on) = (tied_session(false), tied_session(true));
        let (g_off, g_on) = (&off.generations[0], &on.generations[0]);
        assert_eq!(
            g_off.fitness_decided,
            Some(false),
            "the sample ties: {g_off:#?}"
        );
        assert!(g_off.settling.is_empty());
        assert!(!g_on.settling.is_empty());
        assert_eq!(g_on.settling.len(), g_off.mutants.len(), "as many again");
        let mut drawn = g_off.mutants.clone();
        drawn.extend(g_on.settling.iter().cloned());
        assert_eq!(
            g_on.mutants, drawn,
            "the same sample, then the drawn mutants"
        );
        for t in &g_on.tests {
            for m in &g_on.settling {
                assert!(
                    on.execution(t, &Target::Mutant(m.clone())).is_some(),
                    "{t} x {m}"
                );
            }
        }
        assert_eq!(g_on.fitness_decided, Some(true), "{g_on:#?}");
        let lines = explain_cut(&on, 0).unwrap().lines;
        let n = g_on.settling.len();
        assert!(
            lines.iter().any(|l| l
                == &format!(
                    "the sample's {n} mutants left the cut tied: {n} more were drawn and their \
                     kills decided it"
                )),
            "{lines:#?}"
        );
        let lines = explain_cut(&off, 0).unwrap().lines;
        assert!(
            lines
                .iter()
                .any(|l| l.contains("kill different mutants, as many each")
                    || l.contains("no mutant tells them apart")
                    || l.contains("none tells them apart")),
            "{lines:#?}"
        );
    }
}
