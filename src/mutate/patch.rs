//! Unified diffs of a mutant, in the form `git apply` takes at the repository root.

use similar::TextDiff;
use std::fmt::Write;

/// A unified diff from `old` to `new` for `file` (relative to the repository root), with
/// `--- a/FILE` / `+++ b/FILE` headers and 3 lines of context. Always ends with a newline.
///
/// Written line by line rather than with `similar`'s `Display`, which leaves out the
/// `\ No newline at end of file` marker when neither side ends in a newline; without it
/// `git apply` rejects the hunk or adds a newline the file never had.
pub fn unified_diff(file: &str, old: &str, new: &str) -> String {
    let diff = TextDiff::from_lines(old, new);
    let mut out = String::new();
    let _ = write!(out, "--- a/{file}\n+++ b/{file}\n");
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        let _ = writeln!(out, "{}", hunk.header());
        for change in hunk.iter_changes() {
            let value = change.value();
            let _ = write!(out, "{}{value}", change.tag());
            if !value.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_has_git_headers_and_three_lines_of_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            unified_diff("pkg/m.py", old, new),
            "--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
    }

    #[test]
    fn diff_marks_a_missing_final_newline_and_ends_with_a_newline() {
        let diff = unified_diff("m.py", "x = 1\ny = 2", "x = 1\ny = 0");
        assert_eq!(
            diff,
            "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n\\ No newline at end of file\n+y = 0\n\\ No newline at end of file\n"
        );
        // An unchanged last line without a newline is context and still needs the marker.
        let diff = unified_diff("m.py", "x = 1\ny = 2", "x = 0\ny = 2");
        assert!(
            diff.ends_with(" y = 2\n\\ No newline at end of file\n"),
            "{diff}"
        );
    }
}
