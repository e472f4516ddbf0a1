//! The wall clock, in the whole seconds that sessions, acts and out-dir claims record.

/// Seconds since the Unix epoch; 0 on a clock set before it (a record's time is a note,
/// never a decision).
pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `HH:MM:SS UTC` of a Unix time, for progress lines (the day is the same in practice: a
/// provider batch ends within a day).
pub fn utc_label(unix: u64) -> String {
    let s = unix % 86_400;
    format!("{:02}:{:02}:{:02} UTC", s / 3600, s / 60 % 60, s % 60)
}
