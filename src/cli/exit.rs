//! How a command ends for the shell: its exit codes, and an error said once.

/// Exit code for "the command worked and the answer is no" (eval: not F2P).
pub const EXIT_NOT_F2P: u8 = 3;
/// Exit code after Ctrl-C or SIGTERM (the session is saved).
pub const EXIT_INTERRUPTED: u8 = 130;

/// An error and its causes, each said once: many messages already end with their cause
/// (`cannot read X: No such file or directory`), and printing the chain again would repeat it.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}
