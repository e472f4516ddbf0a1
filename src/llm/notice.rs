//! What an HTTP provider tells its caller while it retries, so that a run against an
//! overloaded or unreachable endpoint is not silent for the minutes its backoff can take.
//! A notice is built only from the provider name, the endpoint's host and a redacted reason,
//! so it can be printed, logged or stored without exposing a key.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// One failed attempt that will be retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    pub provider: String,
    /// `host[:port]` of the endpoint: no scheme, path, query or credentials.
    pub endpoint: String,
    /// The attempt that failed (1-based); the retry about to happen is the same number.
    pub attempt: u32,
    /// All attempts allowed, the first one included.
    pub attempts: u32,
    /// How long until the next attempt.
    pub wait: Duration,
    /// Why the attempt failed, e.g. `connection refused` or `HTTP 529: Overloaded`.
    pub reason: String,
}

/// A callback for [`RetryNotice`]s, held in a `RetryPolicy`. Debug and PartialEq are
/// written by hand so that the policy keeps its derives: two observers are equal when
/// they are the same callback.
#[derive(Clone)]
pub struct RetryObserver(Arc<dyn Fn(&RetryNotice) + Send + Sync>);

impl RetryObserver {
    pub fn new(f: impl Fn(&RetryNotice) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    pub fn notify(&self, notice: &RetryNotice) {
        (self.0)(notice)
    }
}

impl fmt::Debug for RetryObserver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RetryObserver(..)")
    }
}

impl PartialEq for RetryObserver {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn observers_compare_by_identity_and_deliver_notices() {
        let seen = Arc::new(Mutex::new(vec![]));
        let sink = Arc::clone(&seen);
        let a = RetryObserver::new(move |n| sink.lock().unwrap().push(n.attempt));
        let b = RetryObserver::new(|_| {});
        assert_eq!(a, a.clone());
        assert_ne!(a, b);
        assert_eq!(format!("{a:?}"), "RetryObserver(..)");
        a.notify(&RetryNotice {
            provider: "anthropic".into(),
            endpoint: "127.0.0.1:9".into(),
            attempt: 1,
            attempts: 3,
            wait: Duration::from_millis(500),
            reason: "connection refused".into(),
        });
        assert_eq!(*seen.lock().unwrap(), [1]);
    }
}
