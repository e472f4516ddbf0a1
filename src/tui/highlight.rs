//! Syntax highlighting of Python source and unified diffs for the TUI, with syntect, as ratatui
//! lines: foreground colours and bold/italic/underline only, since the TUI's theme owns
//! backgrounds and the base text colour.
//!
//! The TUI redraws the same test source every frame, so results are cached by content hash, and
//! syntect's syntax set (slow to load) is loaded once for the whole process, on first use.

use std::collections::VecDeque;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};

use super::log_diff::printable;

/// Themes from syntect's defaults whose colours read on a dark or a light terminal background,
/// and that mark a diff's lines with foreground colours (InspiredGitHub, for one, marks them with
/// backgrounds, which are not ours to set).
const DARK_THEME: &str = "base16-ocean.dark";
const LIGHT_THEME: &str = "Solarized (light)";

/// Highlighted texts kept: the Pair screen shows a test, its mutant's diff and a few neighbours.
const CACHE_ENTRIES: usize = 16;

fn syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(SyntaxSet::load_defaults_newlines)
}

fn themes() -> &'static ThemeSet {
    static THEMES: OnceLock<ThemeSet> = OnceLock::new();
    THEMES.get_or_init(ThemeSet::load_defaults)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Language {
    Python,
    Diff,
}

impl Language {
    fn syntax(self, set: &SyntaxSet) -> &SyntaxReference {
        let found = match self {
            Language::Python => set.find_syntax_by_extension("py"),
            Language::Diff => set.find_syntax_by_extension("diff"),
        };
        found.unwrap_or_else(|| set.find_syntax_plain_text())
    }
}

/// Highlights Python and diffs in one theme; cheap to share (`&self` methods, `Sync`).
pub struct Highlighter {
    /// `None` when colour is off (NO_COLOR): lines come back plain.
    theme: Option<&'static Theme>,
    cache: Mutex<VecDeque<(u64, Vec<Line<'static>>)>>,
    /// How many texts were highlighted rather than taken from the cache.
    renders: AtomicUsize,
}

impl Highlighter {
    /// `dark`: pick a syntect theme that reads on a dark background (else a light one).
    /// `enabled`: false (NO_COLOR) gives plain, unstyled lines.
    pub fn new(dark: bool, enabled: bool) -> Self {
        let theme = enabled.then(|| &themes().themes[if dark { DARK_THEME } else { LIGHT_THEME }]);
        Highlighter {
            theme,
            cache: Mutex::new(VecDeque::with_capacity(CACHE_ENTRIES)),
            renders: AtomicUsize::new(0),
        }
    }

    /// One line per line of `source`.
    pub fn python(&self, source: &str) -> Vec<Line<'static>> {
        self.cached(Language::Python, source)
    }

    /// One line per line of `unified_diff`: headers, hunk ranges, `-` and `+` lines apart.
    pub fn diff(&self, unified_diff: &str) -> Vec<Line<'static>> {
        self.cached(Language::Diff, unified_diff)
    }

    fn cached(&self, language: Language, text: &str) -> Vec<Line<'static>> {
        let Some(theme) = self.theme else {
            return text.lines().map(|l| Line::raw(printable(l))).collect();
        };
        let mut hasher = DefaultHasher::new();
        (language, text).hash(&mut hasher);
        let key = hasher.finish();
        if let Some(lines) = self.lock_cache().iter().find(|(k, _)| *k == key) {
            return lines.1.clone();
        }
        // Highlight without holding the lock: another thread may draw meanwhile.
        self.renders.fetch_add(1, Ordering::Relaxed);
        let lines = highlight(theme, language, text);
        let mut cache = self.lock_cache();
        if cache.len() == CACHE_ENTRIES {
            cache.pop_front();
        }
        cache.push_back((key, lines.clone()));
        lines
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, Vec<Line<'static>>)>> {
        // A panic elsewhere while holding the lock leaves a cache that is still consistent.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[cfg(test)]
    fn renders(&self) -> usize {
        self.renders.load(Ordering::Relaxed)
    }
}

/// Each line made printable first (tabs, control chars), then highlighted; a line syntect fails
/// on, and all after it (its parse state is lost), come back plain.
fn highlight(theme: &Theme, language: Language, text: &str) -> Vec<Line<'static>> {
    let set = syntaxes();
    let mut lines_state = Some(HighlightLines::new(language.syntax(set), theme));
    let base = theme.settings.foreground;
    text.lines()
        .map(|raw| {
            let mut line = printable(raw);
            line.push('\n');
            let pieces = lines_state
                .as_mut()
                .and_then(|h| h.highlight_line(&line, set).ok());
            let Some(pieces) = pieces else {
                lines_state = None;
                line.pop();
                return Line::raw(line);
            };
            let spans: Vec<Span<'static>> = pieces
                .into_iter()
                .map(|(style, piece)| (style, piece.strip_suffix('\n').unwrap_or(piece)))
                .filter(|(_, piece)| !piece.is_empty())
                .map(|(style, piece)| Span::styled(piece.to_string(), ratatui_style(style, base)))
                .collect();
            Line::from(spans)
        })
        .collect()
}

/// The theme's default foreground is left unset, so plain text takes the TUI's own text colour.
fn ratatui_style(
    style: syntect::highlighting::Style,
    base: Option<syntect::highlighting::Color>,
) -> Style {
    let fg = style.foreground;
    let mut out = Style::new();
    if Some(fg) != base && fg.a > 0 {
        out = out.fg(Color::Rgb(fg.r, fg.g, fg.b));
    }
    for (font, modifier) in [
        (FontStyle::BOLD, Modifier::BOLD),
        (FontStyle::ITALIC, Modifier::ITALIC),
        (FontStyle::UNDERLINE, Modifier::UNDERLINED),
    ] {
        if style.font_style.contains(font) {
            out = out.add_modifier(modifier);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
import pytest


def test_add():
\tresult = add(2, 2)  # the focal function
\tassert result == 5, \"wrong sum\"
";

    const DIFF: &str = "\
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a + b
+    return a - b
";

    fn style_of(line: &Line, word: &str) -> Style {
        line.spans
            .iter()
            .find(|s| s.content.contains(word))
            .map(|s| s.style)
            .unwrap_or_else(|| panic!("{word:?} not in {line:?}"))
    }

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn python_keywords_differ_from_identifiers() {
        for dark in [true, false] {
            let h = Highlighter::new(dark, true);
            let lines = h.python(SOURCE);
            assert_eq!(lines.len(), 6);
            let def = style_of(&lines[3], "def");
            let name = style_of(&lines[4], "result");
            assert_ne!(def, name, "dark {dark}");
            assert_ne!(def, Style::new(), "dark {dark}");
            assert_ne!(style_of(&lines[0], "import"), name);
            for line in &lines {
                for span in &line.spans {
                    assert_eq!(span.style.bg, None);
                    assert!(!span.content.contains(['\t', '\n']));
                }
            }
            assert_eq!(
                text(&lines[4]),
                "    result = add(2, 2)  # the focal function"
            );
        }
    }

    #[test]
    fn disabled_gives_plain_lines() {
        let h = Highlighter::new(true, false);
        for lines in [h.python(SOURCE), h.diff(DIFF)] {
            assert!(!lines.is_empty());
            for line in &lines {
                assert_eq!(line.style, Style::new());
                assert!(line.spans.iter().all(|s| s.style == Style::new()));
            }
        }
        assert_eq!(
            text(&h.python(SOURCE)[5]),
            "    assert result == 5, \"wrong sum\""
        );
    }

    #[test]
    fn diff_added_and_removed_lines_differ() {
        for dark in [true, false] {
            let h = Highlighter::new(dark, true);
            let lines = h.diff(DIFF);
            assert_eq!(lines.len(), 6);
            let removed = style_of(&lines[4], "return");
            let added = style_of(&lines[5], "return");
            assert_ne!(removed, added, "dark {dark}");
            assert_ne!(removed, style_of(&lines[3], "def"), "dark {dark}");
            assert_ne!(added, style_of(&lines[3], "def"), "dark {dark}");
            assert_eq!(text(&lines[5]), "+    return a - b");
        }
    }

    #[test]
    fn the_same_text_twice_hits_the_cache() {
        let h = Highlighter::new(true, true);
        let first = h.python(SOURCE);
        assert_eq!(h.renders(), 1);
        assert_eq!(h.python(SOURCE), first);
        assert_eq!(h.renders(), 1);
        // The same text as a diff is another entry.
        h.diff(SOURCE);
        assert_eq!(h.renders(), 2);
        for i in 0..CACHE_ENTRIES {
            h.python(&format!("x = {i}\n"));
        }
        assert_eq!(h.renders(), 2 + CACHE_ENTRIES);
        // The oldest entries went to make room.
        h.python(SOURCE);
        assert_eq!(h.renders(), 3 + CACHE_ENTRIES);
    }

    #[test]
    fn control_and_wide_chars_are_made_printable() {
        let h = Highlighter::new(true, true);
        let lines = h.python("s = \"\x1b[31mred\x1b[0m \u{4e2d}\"\x07\n");
        assert_eq!(text(&lines[0]), "s = \"red ?\"^G");
    }

    /// Not an assertion on time: prints what the first and second highlighting of a 200-line
    /// file cost (`cargo test --lib tui::highlight -- --nocapture`).
    #[test]
    fn timing_of_a_200_line_file() {
        use std::time::Instant;
        let source: String = (0..50)
            .map(|i| {
                format!(
                    "def test_case_{i}(tmp_path):\n    value = compute({i}, \"text\")  # note\n    \
                     assert value == {i} * 2\n\n"
                )
            })
            .collect();
        assert_eq!(source.lines().count(), 200);
        let t = Instant::now();
        let h = Highlighter::new(true, true);
        syntaxes();
        let loading = t.elapsed();
        let t = Instant::now();
        let first = h.python(&source);
        let first_time = t.elapsed();
        let t = Instant::now();
        let second = h.python(&source);
        let second_time = t.elapsed();
        let other = source.replace("note", "other note");
        let t = Instant::now();
        h.python(&other);
        let warm_time = t.elapsed();
        assert_eq!(first, second);
        println!(
            "highlighting 200 lines: loading syntaxes and themes {loading:?} (none if another \
             test loaded them), first {first_time:?}, second {second_time:?} (cache), \
             another text {warm_time:?}"
        );
    }
}
