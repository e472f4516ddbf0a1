//! The values evootter must never write or send: the API keys it read, and the credentials in
//! its own environment. Tests never see them (executions get an allowlisted environment), but
//! a test can still find one elsewhere (a file in the repository, `/proc/<ppid>/environ`
//! without the sandbox) and print it. So every text that leaves the process (a stored log, a
//! prompt, session.json, report.json, the events file) goes through [`redact`] on its way out.
//!
//! The set is process-wide on purpose: the secrets are a property of the process (what it
//! read from its environment), and every way out must apply them, including ways added later
//! that no one thought to hand a redactor to.

use std::borrow::Cow;
use std::sync::RwLock;

/// What a secret's value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Shorter values are not held: a short word ("1", "true", a port) would be replaced
/// everywhere it occurs in ordinary text, and no real key is this short.
const MIN_LEN: usize = 8;

/// Parts of a variable's name that mark its value as a credential.
const SECRET_NAME_PARTS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
    "SESSION",
];

static HELD: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Keeps `value` out of everything evootter writes or sends from now on.
pub fn hold(value: &str) {
    let value = value.trim();
    if value.len() < MIN_LEN {
        return;
    }
    let mut held = HELD.write().unwrap_or_else(|p| p.into_inner());
    if !held.iter().any(|v| v == value) {
        held.push(value.to_owned());
        // Longest first, so a key that contains another is replaced whole.
        held.sort_by_key(|v| std::cmp::Reverse(v.len()));
    }
}

/// True for a variable whose value is a credential: evootter's own (`ANTHROPIC_*`,
/// `OPENAI_*` keys) and anything named like a key, token, secret or password.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAME_PARTS.iter().any(|p| upper.contains(p))
}

/// Holds the value of every credential-like variable of this process's environment
/// (`is_secret_name`). Called once at start; calling it again adds what appeared since.
pub fn hold_environment() {
    for (name, value) in std::env::vars_os() {
        if let (Some(name), Some(value)) = (name.to_str(), value.to_str())
            && is_secret_name(name)
        {
            hold(value);
        }
    }
}

/// `text` with every held value replaced by [`REDACTED`]; borrowed when nothing matched,
/// which is nearly always (one substring search per held value).
pub fn redact(text: &str) -> Cow<'_, str> {
    let held = HELD.read().unwrap_or_else(|p| p.into_inner());
    let mut out = Cow::Borrowed(text);
    for value in held.iter() {
        if out.contains(value.as_str()) {
            out = Cow::Owned(out.replace(value.as_str(), REDACTED));
        }
    }
    out
}

/// [`redact`] over bytes that are UTF-8 (JSON, logs); other bytes pass unchanged, as a held
/// value is text and a file that is not text cannot hold it as text.
pub fn redact_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    match std::str::from_utf8(bytes) {
        Ok(text) => match redact(text) {
            Cow::Borrowed(_) => Cow::Borrowed(bytes),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        },
        Err(_) => Cow::Borrowed(bytes),
    }
}

/// [`redact`] in place.
pub fn redact_string(text: &mut String) {
    if let Cow::Owned(clean) = redact(text) {
        *text = clean;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_values_are_replaced_and_short_ones_never_held() {
        hold("sk-test-0123456789abcdef");
        hold("sk-test-0123456789abcdef-longer");
        hold("short");
        let text = "key=sk-test-0123456789abcdef-longer and sk-test-0123456789abcdef; short";
        assert_eq!(
            redact(text),
            "key=[redacted] and [redacted]; short",
            "the longer key is replaced whole, the short word stays"
        );
        assert!(matches!(redact("nothing here"), Cow::Borrowed(_)));
        assert_eq!(
            redact_bytes(b"x sk-test-0123456789abcdef y").as_ref(),
            b"x [redacted] y"
        );
    }

    #[test]
    fn credential_names() {
        for name in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "aws_secret_access_key",
            "DB_PASSWORD",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["PATH", "HOME", "LANG", "ANTHROPIC_BASE_URL", "PYTHONPATH"] {
            assert!(!is_secret_name(name), "{name}");
        }
    }
}
