//! Content-addressed response cache, so `--resume` and re-runs never pay for the same call twice.
//! The key is a SHA-256 of everything that determines a reply (provider, model, base URL,
//! thinking/reasoning setting, system prompt, messages, max_tokens); the step name is left out
//! on purpose because it does not change what the model sees.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::llm::{BoxFuture, LlmError, LlmReply, LlmRequest, Message, Model};

#[derive(Debug, Clone)]
pub struct ResponseCache {
    dir: PathBuf,
}

#[derive(Serialize)]
struct KeyMaterial<'a> {
    identity: &'a str,
    system: &'a Option<String>,
    messages: &'a [Message],
    max_tokens: u32,
}

impl ResponseCache {
    /// A cache rooted at `dir` (created lazily on first write).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `<user cache dir>/evootter/llm`, or `None` when the platform has no home directory.
    pub fn default_dir() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "evootter").map(|d| d.cache_dir().join("llm"))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Hex SHA-256 of the model identity and the request content.
    pub fn key(identity: &str, req: &LlmRequest) -> String {
        let material = KeyMaterial {
            identity,
            system: &req.system,
            messages: &req.messages,
            max_tokens: req.max_tokens,
        };
        // Serialising a struct of strings cannot fail.
        let bytes = serde_json::to_vec(&material).unwrap_or_default();
        Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// A stored reply, marked `cached`. A missing or unreadable entry is a miss.
    pub async fn get(&self, key: &str) -> Option<LlmReply> {
        let text = tokio::fs::read(self.path(key)).await.ok()?;
        let mut reply: LlmReply = serde_json::from_slice(&text).ok()?;
        reply.cached = true;
        // The stored latency was paid by the original call, not this one.
        reply.latency_ms = 0;
        Some(reply)
    }

    /// Removes an entry; a missing one is fine.
    pub async fn remove(&self, key: &str) {
        let _ = tokio::fs::remove_file(self.path(key)).await;
    }

    /// Stores a reply atomically (temp file + rename), so a crash never leaves half an entry.
    pub async fn put(&self, key: &str, reply: &LlmReply) -> std::io::Result<()> {
        let path = self.path(key);
        let bytes = serde_json::to_vec_pretty(reply).map_err(std::io::Error::other)?;
        let bytes = crate::secrets::redact_bytes(&bytes).into_owned();
        tokio::task::spawn_blocking(move || {
            let dir = path.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(dir)?;
            let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
            tmp.write_all(&bytes)?;
            tmp.as_file().sync_all()?;
            tmp.persist(&path).map_err(|e| e.error)?;
            Ok(())
        })
        .await
        .map_err(std::io::Error::other)?
    }
}

/// Wraps any model with the response cache. Models without a cache identity (scripted) pass
/// straight through.
#[derive(Debug)]
pub struct CachedModel<M: Model> {
    inner: M,
    cache: ResponseCache,
}

impl<M: Model> CachedModel<M> {
    pub fn new(inner: M, cache: ResponseCache) -> Self {
        Self { inner, cache }
    }

    pub fn inner(&self) -> &M {
        &self.inner
    }

    async fn call(&self, req: LlmRequest) -> Result<LlmReply, LlmError> {
        let Some(identity) = self.inner.cache_identity() else {
            return self.inner.complete(req).await;
        };
        let key = ResponseCache::key(&identity, &req);
        if let Some(hit) = self.cache.get(&key).await {
            return Ok(hit);
        }
        let reply = self.inner.complete(req).await?;
        // A failed cache write must not throw away a reply that was already paid for; the
        // only cost is paying again on a re-run.
        let _ = self.cache.put(&key, &reply).await;
        Ok(reply)
    }
}

impl<M: Model> Model for CachedModel<M> {
    fn complete(&self, req: LlmRequest) -> BoxFuture<'_, Result<LlmReply, LlmError>> {
        Box::pin(self.call(req))
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn model_id(&self) -> Option<String> {
        self.inner.model_id()
    }

    fn billed_share(&self) -> f64 {
        self.inner.billed_share()
    }

    fn cache_identity(&self) -> Option<String> {
        self.inner.cache_identity()
    }

    fn forget<'a>(&'a self, req: &'a LlmRequest) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(identity) = self.inner.cache_identity() {
                self.cache.remove(&ResponseCache::key(&identity, req)).await;
            }
        })
    }
}
