//! Anthropic's Message Batches API (`/v1/messages/batches`): each request's `params` is the
//! body a single call would send, so caching breakpoints and thinking carry over; results come
//! as JSON lines, one per request, `succeeded` with the message or `errored`, `expired`,
//! `canceled`.

use std::collections::BTreeMap;

use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

use super::{Anthropic, PROVIDER};
use crate::llm::LlmError;
use crate::llm::provider_batch::{BatchRequest, BatchStatus, Counts, Outcome};
use crate::llm::retry::preview;

#[derive(Deserialize)]
struct Batch {
    id: String,
    processing_status: String,
    #[serde(default)]
    request_counts: RequestCounts,
}

#[derive(Deserialize, Default)]
struct RequestCounts {
    #[serde(default)]
    processing: u64,
    #[serde(default)]
    succeeded: u64,
    #[serde(default)]
    errored: u64,
    #[serde(default)]
    canceled: u64,
    #[serde(default)]
    expired: u64,
}

#[derive(Deserialize)]
struct ResultLine {
    custom_id: String,
    result: serde_json::Value,
}

impl Anthropic {
    fn malformed(&self, what: &str, body: &str, e: impl std::fmt::Display) -> LlmError {
        LlmError::MalformedResponse {
            provider: PROVIDER.to_string(),
            detail: format!(
                "{what}: {e}; body starts: {}",
                self.key.redact(&preview(body))
            ),
        }
    }

    fn batch_of(&self, body: &str) -> Result<Batch, LlmError> {
        serde_json::from_str(body).map_err(|e| self.malformed("a message batch", body, e))
    }

    async fn submit_batch(&self, requests: &[BatchRequest]) -> Result<String, LlmError> {
        let body = json!({
            "requests": requests
                .iter()
                .map(|r| json!({"custom_id": r.custom_id, "params": self.body(&r.req)}))
                .collect::<Vec<_>>(),
        });
        let http = self
            .send(Method::POST, "messages/batches", Some(&body))
            .await?;
        Ok(self.batch_of(&http.body)?.id)
    }

    async fn batch_status(&self, id: &str) -> Result<BatchStatus, LlmError> {
        let http = self
            .send(Method::GET, &format!("messages/batches/{id}"), None)
            .await?;
        let b = self.batch_of(&http.body)?;
        let c = b.request_counts;
        Ok(BatchStatus {
            ended: b.processing_status == "ended",
            status: b.processing_status,
            counts: Counts {
                processing: c.processing,
                succeeded: c.succeeded,
                errored: c.errored + c.canceled + c.expired,
            },
        })
    }

    async fn batch_results(&self, id: &str) -> Result<BTreeMap<String, Outcome>, LlmError> {
        let http = self
            .send(Method::GET, &format!("messages/batches/{id}/results"), None)
            .await?;
        let mut out = BTreeMap::new();
        for line in http.body.lines().filter(|l| !l.trim().is_empty()) {
            let r: ResultLine = serde_json::from_str(line)
                .map_err(|e| self.malformed("a batch result", line, e))?;
            let outcome = match r.result["type"].as_str().unwrap_or("") {
                "succeeded" => match self.message(&r.result["message"].to_string(), 0) {
                    Ok(reply) => Outcome::Answered(reply),
                    Err(e) => Outcome::Failed(e.to_string()),
                },
                "errored" => {
                    let e = &r.result["error"]["error"];
                    Outcome::Failed(format!(
                        "errored: {} {}",
                        e["type"].as_str().unwrap_or("error"),
                        self.key.redact(e["message"].as_str().unwrap_or(""))
                    ))
                }
                other => Outcome::Failed(if other.is_empty() {
                    "no result type".to_string()
                } else {
                    other.to_string()
                }),
            };
            out.insert(r.custom_id, outcome);
        }
        Ok(out)
    }
}

crate::llm::provider_batch::batch_api_by!(Anthropic);
