//! Provider batches for a benchmark batch (`bench --llm-batch`): the instances' calls go to
//! the provider together, as one Anthropic Message Batch or OpenAI Batch, billed at half the
//! price ([`crate::llm::price::BATCH_DISCOUNT`]).
//!
//! Each instance gets a [`BatchClient`] (a [`Model`], so the engine is unchanged) and holds a
//! [`Participant`] while its run may still call the model. A call waits in the queue until
//! every participant is waiting on the model too (or the gathering time is up): the instances
//! then advance in lockstep, each step's calls in one provider batch. A batch is polled with
//! backoff until it ends; its answers are handed out, and a request that failed inside it
//! (errored, expired, cancelled) is sent again alone, as an ordinary call.
//!
//! Every submitted batch is written to a journal (`llm_batches.jsonl` in the batch's
//! directory) before anyone waits on it, by request content: a killed `bench`, run again,
//! finds its instances' calls there and polls the batch that already holds them instead of
//! paying for them again.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc::UnboundedSender, watch};

use crate::llm::cache::ResponseCache;
use crate::llm::{BoxFuture, LlmError, LlmReply, LlmRequest, Model};

/// The journal's file name in a batch's directory.
pub const JOURNAL: &str = "llm_batches.jsonl";

/// One request of a provider batch, under an id unique in it.
#[derive(Debug, Clone)]
pub struct BatchRequest {
    pub custom_id: String,
    pub req: LlmRequest,
}

/// How many of a batch's requests are where, as the provider counts them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub processing: u64,
    pub succeeded: u64,
    pub errored: u64,
}

/// A batch as the provider reports it: its own word for the state, whether it has ended (no
/// request of it will change any more), and the counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchStatus {
    pub status: String,
    pub ended: bool,
    pub counts: Counts,
}

/// One request's result in an ended batch.
#[derive(Debug, Clone)]
pub enum Outcome {
    Answered(LlmReply),
    /// Errored, expired or cancelled: it is sent again alone.
    Failed(String),
}

/// A provider's batch API. A provider is also a [`Model`]: what failed in a batch is sent
/// again through it, alone.
pub trait BatchApi: Model {
    /// Submits the requests as one batch; returns its id.
    fn submit<'a>(
        &'a self,
        requests: &'a [BatchRequest],
    ) -> BoxFuture<'a, Result<String, LlmError>>;
    fn status<'a>(&'a self, batch: &'a str) -> BoxFuture<'a, Result<BatchStatus, LlmError>>;
    /// The results of an ended batch, by custom id.
    fn results<'a>(
        &'a self,
        batch: &'a str,
    ) -> BoxFuture<'a, Result<BTreeMap<String, Outcome>, LlmError>>;
}

/// Implements [`BatchApi`] for a provider by its inherent `submit_batch`, `batch_status` and
/// `batch_results`.
macro_rules! batch_api_by {
    ($provider:ty) => {
        impl $crate::llm::provider_batch::BatchApi for $provider {
            fn submit<'a>(
                &'a self,
                requests: &'a [$crate::llm::provider_batch::BatchRequest],
            ) -> $crate::llm::BoxFuture<'a, Result<String, $crate::llm::LlmError>> {
                Box::pin(self.submit_batch(requests))
            }

            fn status<'a>(
                &'a self,
                batch: &'a str,
            ) -> $crate::llm::BoxFuture<
                'a,
                Result<$crate::llm::provider_batch::BatchStatus, $crate::llm::LlmError>,
            > {
                Box::pin(self.batch_status(batch))
            }

            fn results<'a>(
                &'a self,
                batch: &'a str,
            ) -> $crate::llm::BoxFuture<
                'a,
                Result<
                    std::collections::BTreeMap<String, $crate::llm::provider_batch::Outcome>,
                    $crate::llm::LlmError,
                >,
            > {
                Box::pin(self.batch_results(batch))
            }
        }
    };
}
pub(crate) use batch_api_by;

/// How long to gather calls and how often to poll.
#[derive(Debug, Clone, Copy)]
pub struct Pacing {
    /// The first poll comes this long after submission; each later one twice as long after
    /// the one before, up to `max_poll`.
    pub first_poll: Duration,
    pub max_poll: Duration,
    /// A call waits this long at most for the other participants' calls before its batch is
    /// submitted without them.
    pub gather: Duration,
    /// A "still waiting" line at most this often per batch.
    pub news_every: Duration,
}

impl Default for Pacing {
    fn default() -> Self {
        Self {
            first_poll: Duration::from_secs(10),
            max_poll: Duration::from_secs(300),
            gather: Duration::from_secs(120),
            news_every: Duration::from_secs(60),
        }
    }
}

/// What the batcher tells the progress display.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchNews {
    Submitted {
        batch: String,
        requests: Vec<String>,
    },
    /// Polling a batch a run submitted before it was stopped.
    Resumed {
        batch: String,
        requests: Vec<String>,
        submitted_unix: u64,
    },
    Waiting {
        batch: String,
        requests: Vec<String>,
        since_unix: u64,
        status: String,
        counts: Counts,
    },
    Ended {
        batch: String,
        answered: usize,
        failed: usize,
        seconds: f64,
    },
    RetriedAlone {
        batch: String,
        request: String,
        reason: String,
    },
}

impl fmt::Display for BatchNews {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |r: &[String]| {
            let mut s = r.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
            if r.len() > 4 {
                s.push_str(&format!(" and {} more", r.len() - 4));
            }
            s
        };
        match self {
            BatchNews::Submitted { batch, requests } => write!(
                f,
                "llm batch {batch}: submitted {} request(s): {}",
                requests.len(),
                list(requests)
            ),
            BatchNews::Resumed {
                batch,
                requests,
                submitted_unix,
            } => write!(
                f,
                "llm batch {batch}: polling again, submitted at {} by an earlier run, for {}",
                crate::clock::utc_label(*submitted_unix),
                list(requests)
            ),
            BatchNews::Waiting {
                batch,
                requests,
                since_unix,
                status,
                counts,
            } => write!(
                f,
                "llm batch {batch}: {status} since {} ({} s), {} answered, {} errored, {} processing; waiting: {}",
                crate::clock::utc_label(*since_unix),
                crate::clock::now_unix().saturating_sub(*since_unix),
                counts.succeeded,
                counts.errored,
                counts.processing,
                list(requests)
            ),
            BatchNews::Ended {
                batch,
                answered,
                failed,
                seconds,
            } => write!(
                f,
                "llm batch {batch}: ended after {seconds:.0} s, {answered} answered, {failed} to send again alone"
            ),
            BatchNews::RetriedAlone {
                batch,
                request,
                reason,
            } => write!(
                f,
                "llm batch {batch}: {request} failed in the batch ({reason}); sent again alone"
            ),
        }
    }
}

/// A journal line: a batch submitted (its requests by content key) or collected.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Entry {
    Submitted {
        batch: String,
        unix: u64,
        requests: Vec<JournalRequest>,
    },
    Collected {
        batch: String,
        unix: u64,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct JournalRequest {
    custom_id: String,
    /// The response cache's key of the request: its content, never a key or header.
    key: String,
    label: String,
}

/// The batches a journal names as submitted and not collected.
fn open_batches(journal: &Path) -> Vec<(String, u64, Vec<JournalRequest>)> {
    let Ok(text) = std::fs::read_to_string(journal) else {
        return vec![];
    };
    let mut open: Vec<(String, u64, Vec<JournalRequest>)> = vec![];
    // A line cut by a crash is skipped: its batch is then paid again, nothing worse.
    for entry in text
        .lines()
        .filter_map(|l| serde_json::from_str::<Entry>(l).ok())
    {
        match entry {
            Entry::Submitted {
                batch,
                unix,
                requests,
            } => open.push((batch, unix, requests)),
            Entry::Collected { batch, .. } => open.retain(|(b, _, _)| *b != batch),
        }
    }
    open
}

/// What waits on a provider batch in the batch directory `dir`, as its journal says: per
/// instance, the batch and when it was submitted (for the Batch screen).
pub fn waiting(dir: &Path) -> HashMap<String, (String, u64)> {
    let mut out = HashMap::new();
    for (batch, unix, requests) in open_batches(&dir.join(JOURNAL)) {
        for r in requests {
            let instance = r.label.split(' ').next().unwrap_or_default().to_string();
            out.insert(instance, (batch.clone(), unix));
        }
    }
    out
}

fn append(journal: &Path, entry: &Entry) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(journal)?;
    // One write of a whole line, synced before anyone waits on the batch it names.
    f.write_all(&line)?;
    f.sync_data()
}

/// A request waiting for the next batch.
struct Queued {
    key: String,
    label: String,
    req: LlmRequest,
}

/// A batch submitted (or found in the journal) whose answers are not all handed out.
struct Running {
    /// True once it has ended and its answers and failures are filed.
    ended: watch::Sender<bool>,
    polling: bool,
    /// custom id -> (key, label)
    requests: HashMap<String, (String, String)>,
    submitted_unix: u64,
    /// Requests not yet handed their answer or failure; at none the journal says collected
    /// (until then a killed bench polls it again rather than paying for it again).
    left: usize,
}

#[derive(Default)]
struct State {
    participants: usize,
    queue: Vec<Queued>,
    /// Told the id of the batch the current queue went into (or why it could not go).
    queue_tx: Option<watch::Sender<Option<Result<String, String>>>>,
    /// Bumped at every flush, so a gathering timer knows whether its queue is gone.
    generation: u64,
    running: HashMap<String, Running>,
    /// Request key -> batch holding it.
    open: HashMap<String, String>,
    /// Answers not yet taken, by request key (answers of a resumed batch wait here for the
    /// instance that asks); more than one when instances sent the same request.
    answered: HashMap<String, Vec<LlmReply>>,
    failed: HashMap<String, Vec<String>>,
}

impl State {
    /// One of the answers (else failures) filed for `key`.
    fn take(&mut self, key: &str) -> Option<Result<LlmReply, String>> {
        fn pop<T>(m: &mut HashMap<String, Vec<T>>, key: &str) -> Option<T> {
            let v = m.get_mut(key)?;
            let t = v.pop();
            if v.is_empty() {
                m.remove(key);
            }
            t
        }
        pop(&mut self.answered, key)
            .map(Ok)
            .or_else(|| pop(&mut self.failed, key).map(Err))
    }
}

struct Shared {
    api: Arc<dyn BatchApi>,
    identity: String,
    state: Mutex<State>,
    journal: PathBuf,
    news: Option<UnboundedSender<BatchNews>>,
    pacing: Pacing,
}

/// The batcher of a benchmark batch: hands out a client per instance.
#[derive(Clone)]
pub struct Batcher {
    shared: Arc<Shared>,
}

impl Batcher {
    /// Batches over `api`, journalled in `dir`.
    pub fn new(
        api: Arc<dyn BatchApi>,
        dir: &Path,
        news: Option<UnboundedSender<BatchNews>>,
        pacing: Pacing,
    ) -> Self {
        let identity = api.cache_identity().unwrap_or_else(|| api.describe());
        let mut state = State::default();
        for (batch, unix, requests) in open_batches(&dir.join(JOURNAL)) {
            for r in &requests {
                state.open.insert(r.key.clone(), batch.clone());
            }
            let running = Running {
                ended: watch::channel(false).0,
                polling: false,
                left: requests.len(),
                requests: requests
                    .into_iter()
                    .map(|r| (r.custom_id, (r.key, r.label)))
                    .collect(),
                submitted_unix: unix,
            };
            state.running.insert(batch, running);
        }
        Self {
            shared: Arc::new(Shared {
                api,
                identity,
                state: Mutex::new(state),
                journal: dir.join(JOURNAL),
                news,
                pacing,
            }),
        }
    }

    /// The model an instance's run calls; `instance` names its requests in the news.
    pub fn client(&self, instance: &str) -> BatchClient {
        BatchClient {
            shared: self.shared.clone(),
            instance: instance.to_string(),
        }
    }

    /// One more run that may call the model: calls wait for its call too, until it is dropped.
    pub fn participant(&self) -> Participant {
        lock(&self.shared.state).participants += 1;
        Participant {
            shared: self.shared.clone(),
        }
    }
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Held by a run while it may still call the model.
pub struct Participant {
    shared: Arc<Shared>,
}

impl Drop for Participant {
    fn drop(&mut self) {
        let mut st = lock(&self.shared.state);
        st.participants = st.participants.saturating_sub(1);
        // The others may all be waiting now.
        flush_if_ready(&self.shared, &mut st);
    }
}

/// An instance's model: its calls go into the batches.
pub struct BatchClient {
    shared: Arc<Shared>,
    instance: String,
}

impl Model for BatchClient {
    fn complete(&self, req: LlmRequest) -> BoxFuture<'_, Result<LlmReply, LlmError>> {
        Box::pin(complete(self.shared.clone(), self.instance.clone(), req))
    }

    fn describe(&self) -> String {
        format!("{}, in provider batches", self.shared.api.describe())
    }

    fn model_id(&self) -> Option<String> {
        self.shared.api.model_id()
    }

    fn billed_share(&self) -> f64 {
        crate::llm::price::BATCH_DISCOUNT
    }

    fn cache_identity(&self) -> Option<String> {
        self.shared.api.cache_identity()
    }
}

async fn complete(
    shared: Arc<Shared>,
    instance: String,
    req: LlmRequest,
) -> Result<LlmReply, LlmError> {
    let key = ResponseCache::key(&shared.identity, &req);
    let label = format!("{instance} {}", req.step);
    // In a batch (still running, or ended with its answer waiting), or queued for the next.
    let mut queued = None;
    let batch = {
        let mut st = lock(&shared.state);
        match st.open.get(&key).cloned() {
            Some(b) => Some(b),
            None => {
                if st.queue.is_empty() {
                    st.queue_tx = Some(watch::channel(None).0);
                    arm_gathering(&shared, st.generation);
                }
                st.queue.push(Queued {
                    key: key.clone(),
                    label: label.clone(),
                    req: req.clone(),
                });
                queued = st.queue_tx.as_ref().map(watch::Sender::subscribe);
                flush_if_ready(&shared, &mut st);
                None
            }
        }
    };
    let batch = match (batch, queued) {
        (Some(b), _) => b,
        (None, Some(mut rx)) => {
            let got = rx.wait_for(Option::is_some).await.map(|v| v.clone());
            match got {
                Ok(Some(Ok(b))) => b,
                Ok(Some(Err(e))) => {
                    return Err(LlmError::Transport {
                        provider: shared.api.describe(),
                        detail: format!("the batch could not be submitted: {e}"),
                    });
                }
                _ => return shared.api.complete(req).await,
            }
        }
        (None, None) => return shared.api.complete(req).await,
    };
    let ended = {
        let mut st = lock(&shared.state);
        st.running.get_mut(&batch).map(|r| {
            if !r.polling {
                r.polling = true;
                let requests: Vec<String> = r.requests.values().map(|(_, l)| l.clone()).collect();
                tell(
                    &shared,
                    BatchNews::Resumed {
                        batch: batch.clone(),
                        requests,
                        submitted_unix: r.submitted_unix,
                    },
                );
                tokio::spawn(poll(shared.clone(), batch.clone()));
            }
            r.ended.subscribe()
        })
    };
    if let Some(mut ended) = ended {
        let _ = ended.wait_for(|e| *e).await;
    }
    take_or_retry(&shared, &batch, &key, &label, req).await
}

/// After `batch` ended: its answer to `key`, or the request sent again alone.
async fn take_or_retry(
    shared: &Arc<Shared>,
    batch: &str,
    key: &str,
    label: &str,
    req: LlmRequest,
) -> Result<LlmReply, LlmError> {
    let taken = {
        let mut st = lock(&shared.state);
        let taken = st
            .take(key)
            .unwrap_or_else(|| Err("no result for it".to_string()));
        if !st.answered.contains_key(key) && !st.failed.contains_key(key) {
            st.open.remove(key);
        }
        let done = st.running.get_mut(batch).is_some_and(|r| {
            r.left = r.left.saturating_sub(1);
            r.left == 0
        });
        if done {
            st.running.remove(batch);
            let _ = append(
                &shared.journal,
                &Entry::Collected {
                    batch: batch.to_string(),
                    unix: crate::clock::now_unix(),
                },
            );
        }
        taken
    };
    let reason = match taken {
        Ok(reply) => return Ok(reply),
        Err(reason) => reason,
    };
    tell(
        shared,
        BatchNews::RetriedAlone {
            batch: batch.to_string(),
            request: label.to_string(),
            reason,
        },
    );
    shared.api.complete(req).await
}

fn tell(shared: &Shared, news: BatchNews) {
    if let Some(tx) = &shared.news {
        let _ = tx.send(news);
    }
}

/// After `gather`, the queue of `generation` goes even if not everyone has called yet.
fn arm_gathering(shared: &Arc<Shared>, generation: u64) {
    // Weak: a timer must not keep the batcher (and the progress display it tells) alive.
    let (weak, gather) = (Arc::downgrade(shared), shared.pacing.gather);
    tokio::spawn(async move {
        tokio::time::sleep(gather).await;
        let Some(shared) = weak.upgrade() else {
            return;
        };
        let mut st = lock(&shared.state);
        if st.generation == generation && !st.queue.is_empty() {
            flush(&shared, &mut st);
        }
    });
}

fn flush_if_ready(shared: &Arc<Shared>, st: &mut State) {
    if !st.queue.is_empty() && st.queue.len() >= st.participants {
        flush(shared, st);
    }
}

/// Submits the queue as one batch (journalled before anyone is told its id), then polls it.
fn flush(shared: &Arc<Shared>, st: &mut State) {
    let Some(told) = st.queue_tx.take() else {
        return;
    };
    st.generation += 1;
    let queue = std::mem::take(&mut st.queue);
    let shared = shared.clone();
    tokio::spawn(async move {
        let requests: Vec<BatchRequest> = queue
            .iter()
            .enumerate()
            .map(|(i, q)| BatchRequest {
                // Unique in the batch, and within both providers' rules (64 of [A-Za-z0-9_-]).
                custom_id: format!("r{i}-{}", &q.key[..16]),
                req: q.req.clone(),
            })
            .collect();
        let batch = match shared.api.submit(&requests).await {
            Ok(b) => b,
            Err(e) => {
                let _ = told.send(Some(Err(e.to_string())));
                return;
            }
        };
        let journal = Entry::Submitted {
            batch: batch.clone(),
            unix: crate::clock::now_unix(),
            requests: requests
                .iter()
                .zip(&queue)
                .map(|(r, q)| JournalRequest {
                    custom_id: r.custom_id.clone(),
                    key: q.key.clone(),
                    label: q.label.clone(),
                })
                .collect(),
        };
        // Without the journal line a killed bench would pay for the batch again; the batch
        // itself still serves this run.
        let _ = append(&shared.journal, &journal);
        {
            let mut st = lock(&shared.state);
            for q in &queue {
                st.open.insert(q.key.clone(), batch.clone());
            }
            st.running.insert(
                batch.clone(),
                Running {
                    ended: watch::channel(false).0,
                    polling: true,
                    left: queue.len(),
                    requests: requests
                        .iter()
                        .zip(&queue)
                        .map(|(r, q)| (r.custom_id.clone(), (q.key.clone(), q.label.clone())))
                        .collect(),
                    submitted_unix: crate::clock::now_unix(),
                },
            );
        }
        tell(
            &shared,
            BatchNews::Submitted {
                batch: batch.clone(),
                requests: queue.iter().map(|q| q.label.clone()).collect(),
            },
        );
        let _ = told.send(Some(Ok(batch.clone())));
        poll(shared, batch).await;
    });
}

/// Polls `batch` until it ends, files its answers and failures, and wakes its waiters.
async fn poll(shared: Arc<Shared>, batch: String) {
    poll_until_ended(&shared, &batch).await;
    if let Some(r) = lock(&shared.state).running.get(&batch) {
        r.ended.send_replace(true);
    }
}

/// An error that says nothing of the batch, only that the provider was not reached.
fn unreachable(e: &LlmError) -> bool {
    matches!(
        e,
        LlmError::RetriesExhausted { .. } | LlmError::Transport { .. }
    )
}

/// Polls `batch` with backoff until it ends, then files its answers and failures.
async fn poll_until_ended(shared: &Arc<Shared>, batch: &str) {
    let started = Instant::now();
    let (since, labels) = {
        let st = lock(&shared.state);
        st.running.get(batch).map_or((0, vec![]), |r| {
            (
                r.submitted_unix,
                r.requests.values().map(|(_, l)| l.clone()).collect(),
            )
        })
    };
    let mut delay = shared.pacing.first_poll;
    let mut last_news = Instant::now();
    let outcome = loop {
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(shared.pacing.max_poll);
        let status = match shared.api.status(batch).await {
            Ok(s) if s.ended => match shared.api.results(batch).await {
                Err(e) if unreachable(&e) => Err(e),
                results => break results,
            },
            other => other,
        };
        match status {
            Ok(s) => {
                if last_news.elapsed() >= shared.pacing.news_every {
                    last_news = Instant::now();
                    tell(
                        shared,
                        BatchNews::Waiting {
                            batch: batch.to_string(),
                            requests: labels.clone(),
                            since_unix: since,
                            status: s.status,
                            counts: s.counts,
                        },
                    );
                }
            }
            // The provider out of reach (after the call's own retries): the batch runs on
            // there, and giving up would pay for its requests again. Keep polling.
            Err(e) if unreachable(&e) => {
                if last_news.elapsed() >= shared.pacing.news_every {
                    last_news = Instant::now();
                    tell(
                        shared,
                        BatchNews::Waiting {
                            batch: batch.to_string(),
                            requests: labels.clone(),
                            since_unix: since,
                            status: format!("not reached ({e})"),
                            counts: Counts::default(),
                        },
                    );
                }
            }
            Err(e) => break Err(e),
        }
    };
    let (mut answered, mut failed) = (0, 0);
    {
        let mut st = lock(&shared.state);
        let Some(r) = st.running.get(batch) else {
            return;
        };
        let requests = r.requests.clone();
        // The keys stay open (naming this batch) until their answers are taken.
        for (custom_id, (key, _)) in requests {
            match outcome.as_ref().map(|o| o.get(&custom_id)) {
                Ok(Some(Outcome::Answered(reply))) => {
                    let mut reply = reply.clone();
                    reply.batch = Some(batch.to_string());
                    st.answered.entry(key).or_default().push(reply);
                    answered += 1;
                }
                Ok(Some(Outcome::Failed(why))) => {
                    st.failed.entry(key).or_default().push(why.clone());
                    failed += 1;
                }
                Ok(None) => {
                    st.failed
                        .entry(key)
                        .or_default()
                        .push("the batch has no result for it".into());
                    failed += 1;
                }
                Err(e) => {
                    st.failed
                        .entry(key)
                        .or_default()
                        .push(format!("the batch could not be read: {e}"));
                    failed += 1;
                }
            }
        }
    }
    tell(
        shared,
        BatchNews::Ended {
            batch: batch.to_string(),
            answered,
            failed,
            seconds: started.elapsed().as_secs_f64(),
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A provider whose batches end at the first poll, answering each request with its step,
    /// except the steps named in `fail`; a request sent alone is answered `alone <step>`.
    #[derive(Default)]
    struct Fake {
        fail: Vec<&'static str>,
        /// Polls that do not reach the provider before it answers.
        unreachable: Mutex<usize>,
        batches: Mutex<Vec<Vec<BatchRequest>>>,
        alone: Mutex<Vec<String>>,
    }

    fn reply(text: String) -> LlmReply {
        LlmReply {
            text,
            input_tokens: 10,
            output_tokens: 5,
            cache_write_tokens: 0,
            cache_read_tokens: 0,
            model: "fake".into(),
            stop_reason: None,
            latency_ms: 0,
            cached: false,
            batch: None,
        }
    }

    impl Model for Fake {
        fn complete(&self, req: LlmRequest) -> BoxFuture<'_, Result<LlmReply, LlmError>> {
            self.alone.lock().unwrap().push(req.step.clone());
            Box::pin(async move { Ok(reply(format!("alone {}", req.step))) })
        }
        fn describe(&self) -> String {
            "fake".into()
        }
        fn cache_identity(&self) -> Option<String> {
            Some("fake".into())
        }
    }

    impl BatchApi for Fake {
        fn submit<'a>(
            &'a self,
            requests: &'a [BatchRequest],
        ) -> BoxFuture<'a, Result<String, LlmError>> {
            let mut b = self.batches.lock().unwrap();
            b.push(requests.to_vec());
            let id = format!("b{}", b.len());
            Box::pin(async move { Ok(id) })
        }
        fn status<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<BatchStatus, LlmError>> {
            let mut left = self.unreachable.lock().unwrap();
            let reached = *left == 0;
            *left = left.saturating_sub(1);
            Box::pin(async move {
                if !reached {
                    return Err(LlmError::RetriesExhausted {
                        provider: "fake".into(),
                        url: "http://fake".into(),
                        attempts: 6,
                        seconds: 60.0,
                        last: "connection refused".into(),
                    });
                }
                Ok(BatchStatus {
                    status: "ended".into(),
                    ended: true,
                    counts: Counts::default(),
                })
            })
        }
        fn results<'a>(
            &'a self,
            batch: &'a str,
        ) -> BoxFuture<'a, Result<BTreeMap<String, Outcome>, LlmError>> {
            let n: usize = batch[1..].parse().unwrap();
            let requests = self.batches.lock().unwrap()[n - 1].clone();
            let out = requests
                .into_iter()
                .map(|r| {
                    let o = if self.fail.contains(&r.req.step.as_str()) {
                        Outcome::Failed("errored".into())
                    } else {
                        Outcome::Answered(reply(r.req.step.clone()))
                    };
                    (r.custom_id, o)
                })
                .collect();
            Box::pin(async move { Ok(out) })
        }
    }

    fn pacing() -> Pacing {
        Pacing {
            first_poll: Duration::from_millis(1),
            max_poll: Duration::from_millis(5),
            gather: Duration::from_secs(30),
            news_every: Duration::from_secs(60),
        }
    }

    #[tokio::test]
    async fn participants_go_in_lockstep_and_a_failure_goes_alone() {
        let dir = tempfile::tempdir().unwrap();
        let fake = Arc::new(Fake {
            fail: vec!["select"],
            ..Fake::default()
        });
        let batcher = Batcher::new(fake.clone(), dir.path(), None, pacing());
        let (pa, pb) = (batcher.participant(), batcher.participant());
        let (a, b) = (batcher.client("a"), batcher.client("b"));
        // The same request from both (same prompt): one batch, each its own answer.
        let same = LlmRequest::single("localize", None, "the same prompt", 100);
        let (ra, rb) = tokio::join!(a.complete(same.clone()), b.complete(same.clone()));
        assert_eq!(ra.unwrap().text, "localize");
        let rb = rb.unwrap();
        assert_eq!(
            (rb.text.as_str(), rb.batch.as_deref()),
            ("localize", Some("b1"))
        );
        assert_eq!(fake.batches.lock().unwrap()[0].len(), 2);
        // The provider out of reach for a while: polled on, nothing sent again.
        *fake.unreachable.lock().unwrap() = 3;
        let (ra, rb) = tokio::join!(
            a.complete(LlmRequest::single("crossover", None, "a's", 100)),
            b.complete(LlmRequest::single("crossover", None, "b's", 100))
        );
        assert_eq!(ra.unwrap().batch.as_deref(), Some("b2"));
        assert_eq!(rb.unwrap().text, "crossover");
        assert!(fake.alone.lock().unwrap().is_empty());
        // b's run ends: a's next call goes at once, alone in its batch; its failure alone.
        drop(pb);
        let r = a
            .complete(LlmRequest::single("select", None, "pick", 100))
            .await
            .unwrap();
        assert_eq!((r.text.as_str(), r.batch), ("alone select", None));
        assert_eq!(fake.batches.lock().unwrap().len(), 3);
        assert_eq!(*fake.alone.lock().unwrap(), ["select"]);
        drop(pa);
        // Every batch was handed out: the journal has nothing open.
        assert!(open_batches(&dir.path().join(JOURNAL)).is_empty());
    }

    #[test]
    fn the_journal_names_what_waits_on_a_batch_until_it_is_collected() {
        let dir = tempfile::tempdir().unwrap();
        let j = dir.path().join(JOURNAL);
        let req = |id: &str, label: &str| JournalRequest {
            custom_id: id.into(),
            key: format!("key-{id}"),
            label: label.into(),
        };
        let submitted = |batch: &str, requests| Entry::Submitted {
            batch: batch.into(),
            unix: 3600,
            requests,
        };
        append(
            &j,
            &submitted("b1", vec![req("r0", "inst-a localize_files")]),
        )
        .unwrap();
        append(
            &j,
            &submitted(
                "b2",
                vec![req("r0", "inst-a crossover"), req("r1", "inst-b crossover")],
            ),
        )
        .unwrap();
        append(
            &j,
            &Entry::Collected {
                batch: "b1".into(),
                unix: 3700,
            },
        )
        .unwrap();
        // A line cut short by a crash is skipped.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&j)
            .unwrap()
            .write_all(b"{\"submitted\": {\"batch\": \"b3\", \"un")
            .unwrap();
        let open = open_batches(&j);
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].0, "b2");
        let w = waiting(dir.path());
        assert_eq!(w["inst-a"], ("b2".to_string(), 3600));
        assert_eq!(w["inst-b"], ("b2".to_string(), 3600));
        assert_eq!(crate::clock::utc_label(3600 + 61), "01:01:01 UTC");
    }
}
