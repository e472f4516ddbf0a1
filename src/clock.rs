//! The wall clock, in the whole seconds that sessions, acts and out-dir claims record.

/// Seconds since the Unix epoch; 0 on a clock set before it (a record's time is a note,
/// never a decision).
pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
