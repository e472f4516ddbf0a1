//! Sending one HTTP request with retries (exponential backoff with jitter, `retry-after`
//! honoured and capped, each retry announced to an observer) and turning a provider's
//! non-retryable error response into an [`LlmError`] that says what to do. Shared by every
//! HTTP provider.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::llm::notice::{RetryNotice, RetryObserver};
use crate::llm::{LlmError, endpoint};

/// How hard to try, and who to tell about retries. `base_delay` is configurable so tests run
/// in milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Total attempts including the first one (at least 1).
    pub max_attempts: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// Upper bound on a server's `retry-after`, so a hostile or confused server cannot stall a run.
    pub max_retry_after: Duration,
    /// Whole-request timeout (connect, send and read the body).
    pub timeout: Duration,
    /// Told about each retry before its wait, so a long backoff is not silent.
    pub notify: Option<RetryObserver>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 6,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(120),
            timeout: Duration::from_secs(600),
            notify: None,
        }
    }
}

impl RetryPolicy {
    /// Backoff before retry number `retry` (1-based): `base * 2^(retry-1)`, capped, with the
    /// upper half jittered so parallel callers do not retry in lockstep.
    pub fn backoff(&self, retry: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32 << retry.saturating_sub(1).min(16));
        let capped = exp.min(self.max_delay);
        let half = capped / 2;
        let jitter_ms = half.as_millis() as u64;
        let extra = if jitter_ms == 0 {
            0
        } else {
            random_u64() % (jitter_ms + 1)
        };
        half + Duration::from_millis(extra)
    }
}

fn random_u64() -> u64 {
    // RandomState is seeded randomly per instance; enough for jitter without a rand dependency.
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish()
}

/// A final HTTP answer: success, or an error status that retrying would not fix.
#[derive(Debug, Clone)]
pub struct HttpReply {
    pub status: u16,
    pub body: String,
    pub latency_ms: u64,
}

fn is_retryable_status(status: u16) -> bool {
    // 529 is Anthropic's "overloaded"; it falls in 5xx anyway but is named for clarity.
    status == 429 || status == 529 || (500..=599).contains(&status) || status == 408
}

/// Sends the request built by `build` until it yields a non-retryable answer or attempts run out,
/// telling the policy's observer about each retry before waiting for it; a final answer that
/// is not a success becomes the error that tells the user what to do ([`classify_error`]).
/// `ctx` and `url` label notices and errors (the URL only as [`endpoint::host`] or
/// [`endpoint::redacted`]); `redact` scrubs the key out of server text kept for them.
pub async fn send_with_retry(
    policy: &RetryPolicy,
    ctx: ErrorContext<'_>,
    url: &str,
    redact: impl Fn(&str) -> String,
    build: impl Fn() -> reqwest::RequestBuilder,
) -> Result<HttpReply, LlmError> {
    let http = send_until_final(policy, ctx.provider, url, &redact, build).await?;
    if !(200..300).contains(&http.status) {
        return Err(classify_error(ctx, http.status, &http.body, redact));
    }
    Ok(http)
}

async fn send_until_final(
    policy: &RetryPolicy,
    provider: &str,
    url: &str,
    redact: &impl Fn(&str) -> String,
    build: impl Fn() -> reqwest::RequestBuilder,
) -> Result<HttpReply, LlmError> {
    let attempts = policy.max_attempts.max(1);
    let first_started = std::time::Instant::now();
    let mut last = String::new();
    for attempt in 1..=attempts {
        let started = std::time::Instant::now();
        let mut wait = None;
        match build().timeout(policy.timeout).send().await {
            Ok(resp) => {
                let status = resp.status().as_u16();
                let retry_after = resp
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| parse_retry_after(v, SystemTime::now()));
                match resp.text().await {
                    Ok(body) if !is_retryable_status(status) => {
                        return Ok(HttpReply {
                            status,
                            body,
                            latency_ms: started.elapsed().as_millis() as u64,
                        });
                    }
                    Ok(body) => {
                        last = format!("HTTP {status}: {}", redact(&error_message(&body)));
                        wait = retry_after.map(|d| d.min(policy.max_retry_after));
                    }
                    Err(e) => last = format!("HTTP {status}, body not received: {}", reason(e)),
                }
            }
            Err(e) if e.is_builder() || e.is_redirect() => {
                return Err(LlmError::Transport {
                    provider: provider.to_string(),
                    detail: chain(&e),
                });
            }
            Err(e) if e.is_timeout() => {
                last = format!("timed out after {:?}", policy.timeout);
            }
            // Connect errors, dropped connections and broken bodies are all worth another try.
            Err(e) => last = reason(e),
        }
        if attempt < attempts {
            let wait = wait.unwrap_or_else(|| policy.backoff(attempt));
            if let Some(observer) = &policy.notify {
                observer.notify(&RetryNotice {
                    provider: provider.to_string(),
                    endpoint: endpoint::host(url),
                    attempt,
                    attempts,
                    wait,
                    reason: last.clone(),
                });
            }
            tokio::time::sleep(wait).await;
        }
    }
    Err(LlmError::RetriesExhausted {
        provider: provider.to_string(),
        url: endpoint::redacted(url),
        attempts,
        seconds: first_started.elapsed().as_secs_f64(),
        last,
    })
}

/// Why a request failed, short enough for a progress line: the I/O error kind when there is
/// a telling one ("connection refused"), else the error chain. The URL is left out: notices
/// name the endpoint themselves, and only in a form that cannot carry a key.
fn reason(e: reqwest::Error) -> String {
    use std::io::ErrorKind::*;
    let e = e.without_url();
    let mut src: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    let mut io_kind = None;
    while let Some(s) = src {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            io_kind = Some(io.kind());
        }
        src = s.source();
    }
    match io_kind {
        Some(
            k @ (ConnectionRefused | ConnectionReset | ConnectionAborted | NotConnected
            | BrokenPipe | UnexpectedEof | TimedOut | HostUnreachable | NetworkUnreachable
            | AddrNotAvailable),
        ) => k.to_string(),
        _ => chain(&e),
    }
}

/// reqwest's top-level message is vague ("error sending request"); the source chain says why.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        out.push_str(": ");
        out.push_str(&s.to_string());
        src = s.source();
    }
    out
}

/// The start of a response body, for error messages about bodies that did not parse.
pub fn preview(body: &str) -> String {
    body.chars().take(200).collect()
}

/// `retry-after` is either delta-seconds or an HTTP date (RFC 9110 section 10.2.3).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>()
        && secs.is_finite()
        && secs >= 0.0
    {
        return Some(Duration::from_secs_f64(secs));
    }
    let at = parse_http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses the IMF-fixdate form `Sun, 06 Nov 1994 08:49:37 GMT`, the only one servers send today.
fn parse_http_date(s: &str) -> Option<SystemTime> {
    let rest = s.split_once(", ")?.1;
    let parts: Vec<&str> = rest.split_whitespace().collect();
    if parts.len() != 5 || parts[4] != "GMT" {
        return None;
    }
    let day: i64 = parts[0].parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == parts[1])? as i64 + 1;
    let year: i64 = parts[2].parse().ok()?;
    let hms: Vec<i64> = parts[3]
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    if hms.len() != 3 {
        return None;
    }
    let secs = days_from_civil(year, month, day) * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2];
    Some(UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).ok()?))
}

/// Days since 1970-01-01 (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The human-readable message inside a provider's error body. Anthropic and OpenAI use
/// `{"error": {"message": ...}}`, Ollama `{"error": "..."}`, vLLM `{"message": ...}`.
pub fn error_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let found = v
            .pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"))
            .and_then(|m| m.as_str());
        if let Some(m) = found {
            return m.to_string();
        }
    }
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return "(empty body)".to_string();
    }
    trimmed.chars().take(500).collect()
}

/// Who is asking, for error messages.
#[derive(Debug, Clone, Copy)]
pub struct ErrorContext<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub key_var: &'a str,
}

/// Maps a non-success, non-retryable HTTP answer to the error that tells the user what to do.
/// `redact` scrubs the key out of server text before it can reach a message.
pub fn classify_error(
    ctx: ErrorContext<'_>,
    status: u16,
    body: &str,
    redact: impl Fn(&str) -> String,
) -> LlmError {
    let message = redact(&error_message(body));
    let lower = body.to_lowercase();
    let provider = ctx.provider.to_string();
    let model = ctx.model.to_string();
    if status == 401 || status == 403 {
        return LlmError::BadKey {
            provider,
            status,
            var: ctx.key_var.to_string(),
            message,
        };
    }
    let model_missing = lower.contains("model_not_found")
        || (lower.contains("model")
            && (lower.contains("not found")
                || lower.contains("does not exist")
                || lower.contains("not_found")));
    if status == 404 || (status == 400 && model_missing) {
        return LlmError::BadModel {
            provider,
            model,
            status,
            message,
        };
    }
    const OVERFLOW: [&str; 7] = [
        "context length",
        "context_length",
        "context window",
        "prompt is too long",
        "prompt too long",
        "maximum context",
        "too many tokens",
    ];
    if (status == 400 || status == 413) && OVERFLOW.iter().any(|p| lower.contains(p)) {
        return LlmError::ContextOverflow {
            provider,
            model,
            message,
        };
    }
    LlmError::BadRequest {
        provider,
        status,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(400),
            ..RetryPolicy::default()
        };
        let b1 = p.backoff(1);
        assert!(b1 >= Duration::from_millis(50) && b1 <= Duration::from_millis(100));
        let b5 = p.backoff(5);
        assert!(b5 >= Duration::from_millis(200) && b5 <= Duration::from_millis(400));
    }

    #[test]
    fn error_bodies() {
        assert_eq!(
            error_message(r#"{"type":"error","error":{"type":"x","message":"boom"}}"#),
            "boom"
        );
        assert_eq!(
            error_message(r#"{"error":"model 'q' not found"}"#),
            "model 'q' not found"
        );
        assert_eq!(error_message("plain"), "plain");
    }
}
