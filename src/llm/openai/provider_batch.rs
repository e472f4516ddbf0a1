//! OpenAI's Batch API: the requests go up as a JSON-lines file (`/v1/files`, purpose
//! `batch`), a batch is made of it for `/v1/chat/completions`, polled at `/v1/batches/{id}`,
//! and its answers and errors come back as two more files.

use std::collections::BTreeMap;

use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

use super::{OpenAi, PROVIDER, Payload};
use crate::llm::LlmError;
use crate::llm::provider_batch::{BatchRequest, BatchStatus, Counts, Outcome};
use crate::llm::retry::preview;

/// Whichever of these a batch is in, none of its requests will change any more.
const ENDED: [&str; 4] = ["completed", "failed", "expired", "cancelled"];

#[derive(Deserialize)]
struct Batch {
    id: String,
    status: String,
    output_file_id: Option<String>,
    error_file_id: Option<String>,
    #[serde(default)]
    request_counts: RequestCounts,
    errors: Option<serde_json::Value>,
}

#[derive(Deserialize, Default)]
struct RequestCounts {
    #[serde(default)]
    total: u64,
    #[serde(default)]
    completed: u64,
    #[serde(default)]
    failed: u64,
}

#[derive(Deserialize)]
struct FileObject {
    id: String,
}

#[derive(Deserialize)]
struct ResultLine {
    custom_id: String,
    response: Option<ResultResponse>,
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ResultResponse {
    status_code: u16,
    body: serde_json::Value,
}

/// A multipart form of `purpose=batch` and the file, by hand (one small form does not need
/// reqwest's multipart feature and its dependencies).
fn form(jsonl: &str) -> Payload {
    let boundary = format!(
        "evootter-{:016x}",
        crate::clock::now_unix() ^ jsonl.len() as u64
    );
    let mut bytes = Vec::with_capacity(jsonl.len() + 400);
    bytes.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"batch.jsonl\"\r\n\
             Content-Type: application/jsonl\r\n\r\n"
        )
        .as_bytes(),
    );
    bytes.extend_from_slice(jsonl.as_bytes());
    bytes.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    Payload::Form { boundary, bytes }
}

impl OpenAi {
    fn malformed(&self, what: &str, body: &str, e: impl std::fmt::Display) -> LlmError {
        LlmError::MalformedResponse {
            provider: PROVIDER.to_string(),
            detail: format!("{what}: {e}; body starts: {}", self.redact(&preview(body))),
        }
    }

    async fn get_batch(&self, id: &str) -> Result<Batch, LlmError> {
        let http = self
            .send(Method::GET, &format!("batches/{id}"), None)
            .await?;
        serde_json::from_str(&http.body).map_err(|e| self.malformed("a batch", &http.body, e))
    }

    async fn submit_batch(&self, requests: &[BatchRequest]) -> Result<String, LlmError> {
        let mut jsonl = String::new();
        for r in requests {
            let line = json!({
                "custom_id": r.custom_id,
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": self.body(&r.req),
            });
            jsonl.push_str(&line.to_string());
            jsonl.push('\n');
        }
        let http = self
            .send(Method::POST, "files", Some(&form(&jsonl)))
            .await?;
        let file: FileObject = serde_json::from_str(&http.body)
            .map_err(|e| self.malformed("an uploaded file", &http.body, e))?;
        let body = Payload::Json(json!({
            "input_file_id": file.id,
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
        }));
        let http = self.send(Method::POST, "batches", Some(&body)).await?;
        let b: Batch = serde_json::from_str(&http.body)
            .map_err(|e| self.malformed("a batch", &http.body, e))?;
        Ok(b.id)
    }

    async fn batch_status(&self, id: &str) -> Result<BatchStatus, LlmError> {
        let b = self.get_batch(id).await?;
        let c = b.request_counts;
        Ok(BatchStatus {
            ended: ENDED.contains(&b.status.as_str()),
            status: b.status,
            counts: Counts {
                processing: c.total.saturating_sub(c.completed + c.failed),
                succeeded: c.completed,
                errored: c.failed,
            },
        })
    }

    async fn batch_results(&self, id: &str) -> Result<BTreeMap<String, Outcome>, LlmError> {
        let b = self.get_batch(id).await?;
        if b.status == "failed" {
            // Rejected as a whole (its file did not validate): no request of it ran.
            let why = b
                .errors
                .as_ref()
                .and_then(|e| e["data"][0]["message"].as_str())
                .unwrap_or("no reason given")
                .to_string();
            return Err(LlmError::BadRequest {
                provider: PROVIDER.to_string(),
                status: 400,
                message: format!("batch {} failed: {}", b.id, self.redact(&why)),
            });
        }
        let mut out = BTreeMap::new();
        for file in [b.output_file_id, b.error_file_id].into_iter().flatten() {
            let http = self
                .send(Method::GET, &format!("files/{file}/content"), None)
                .await?;
            for line in http.body.lines().filter(|l| !l.trim().is_empty()) {
                let r: ResultLine = serde_json::from_str(line)
                    .map_err(|e| self.malformed("a batch result", line, e))?;
                let outcome = match (r.response, r.error) {
                    (Some(resp), _) if resp.status_code == 200 => {
                        match self.completion(&resp.body.to_string(), 0) {
                            Ok(reply) => Outcome::Answered(reply),
                            Err(e) => Outcome::Failed(e.to_string()),
                        }
                    }
                    (Some(resp), _) => Outcome::Failed(format!(
                        "HTTP {}: {}",
                        resp.status_code,
                        self.redact(resp.body["error"]["message"].as_str().unwrap_or(""))
                    )),
                    (None, Some(e)) => Outcome::Failed(format!(
                        "{}: {}",
                        e["code"].as_str().unwrap_or("error"),
                        self.redact(e["message"].as_str().unwrap_or(""))
                    )),
                    (None, None) => Outcome::Failed("no response and no error".into()),
                };
                out.insert(r.custom_id, outcome);
            }
        }
        Ok(out)
    }
}

crate::llm::provider_batch::batch_api_by!(OpenAi);
