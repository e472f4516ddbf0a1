//! Key bindings for the TUI: which key means which [`KeyAction`] in which [`KeyContext`].
//!
//! The defaults are the repository's `keymaps/default.toml`, compiled in; the format is
//! described at the top of it. A user's `<config dir>/keymap.toml` is merged over them: a
//! binding there replaces the keys of that action in that context and takes those keys away
//! from the context's other default actions; everything it does not mention keeps its default.
//!
//! A key can mean different things on different screens (`n` steps the engine on the grid but
//! moves to the next hunk in the pair view), so a lookup tries the context's bindings first and
//! then the global ones, except in the editor and the picker: there keys type text, so only
//! their own bindings apply.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::theme::toml_place::{Place, describe, entries_in_order, read_if_present, syntax_error};

const DEFAULT_KEYMAP: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/keymaps/default.toml"));
const DEFAULT_FILE: &str = "keymaps/default.toml (built in)";

/// Something a key can ask the TUI to do. The snake_case name is the key in a keymap file.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize, serde::Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum KeyAction {
    Help,
    Quit,
    Step,
    RunToGate,
    NextScreen,
    PrevScreen,
    Left,
    Down,
    Up,
    Right,
    Open,
    Back,
    Veto,
    Edit,
    Add,
    AddFile,
    Pin,
    Undo,
    Continue,
    Transcript,
    WhyNotKilled,
    First,
    Last,
    PageUp,
    PageDown,
    NextHunk,
    PrevHunk,
    SortRows,
    FilterColumns,
    ToggleRaw,
    ToggleSideBySide,
    Screen1,
    Screen2,
    Screen3,
    Screen4,
    Screen5,
    Screen6,
    Save,
    Cancel,
}

impl KeyAction {
    pub const ALL: &'static [KeyAction] = &[
        KeyAction::Help,
        KeyAction::Quit,
        KeyAction::Step,
        KeyAction::RunToGate,
        KeyAction::NextScreen,
        KeyAction::PrevScreen,
        KeyAction::Left,
        KeyAction::Down,
        KeyAction::Up,
        KeyAction::Right,
        KeyAction::Open,
        KeyAction::Back,
        KeyAction::Veto,
        KeyAction::Edit,
        KeyAction::Add,
        KeyAction::AddFile,
        KeyAction::Pin,
        KeyAction::Undo,
        KeyAction::Continue,
        KeyAction::Transcript,
        KeyAction::WhyNotKilled,
        KeyAction::First,
        KeyAction::Last,
        KeyAction::PageUp,
        KeyAction::PageDown,
        KeyAction::NextHunk,
        KeyAction::PrevHunk,
        KeyAction::SortRows,
        KeyAction::FilterColumns,
        KeyAction::ToggleRaw,
        KeyAction::ToggleSideBySide,
        KeyAction::Screen1,
        KeyAction::Screen2,
        KeyAction::Screen3,
        KeyAction::Screen4,
        KeyAction::Screen5,
        KeyAction::Screen6,
        KeyAction::Save,
        KeyAction::Cancel,
    ];

    /// The key in a keymap file (the serde name).
    pub fn name(self) -> &'static str {
        self.names().0
    }

    /// What the action does, for the help overlay.
    pub fn description(self) -> &'static str {
        self.names().1
    }

    fn names(self) -> (&'static str, &'static str) {
        match self {
            KeyAction::Help => ("help", "show the keys"),
            KeyAction::Quit => ("quit", "quit"),
            KeyAction::Step => ("step", "next engine step"),
            KeyAction::RunToGate => ("run_to_gate", "run until the next gate"),
            KeyAction::NextScreen => ("next_screen", "next screen"),
            KeyAction::PrevScreen => ("prev_screen", "previous screen"),
            KeyAction::Left => ("left", "move left"),
            KeyAction::Down => ("down", "move down"),
            KeyAction::Up => ("up", "move up"),
            KeyAction::Right => ("right", "move right"),
            KeyAction::Open => ("open", "open"),
            KeyAction::Back => ("back", "back"),
            KeyAction::Veto => ("veto", "veto the test"),
            KeyAction::Edit => ("edit", "edit the test"),
            KeyAction::Add => ("add", "add a test"),
            KeyAction::AddFile => ("add_file", "add a test from a file"),
            KeyAction::Pin => ("pin", "pin the test"),
            KeyAction::Undo => ("undo", "undo the last act"),
            KeyAction::Continue => ("continue", "continue past the gate"),
            KeyAction::Transcript => ("transcript", "model transcript"),
            KeyAction::WhyNotKilled => ("why_not_killed", "why this mutant is not killed"),
            KeyAction::First => ("first", "first"),
            KeyAction::Last => ("last", "last"),
            KeyAction::PageUp => ("page_up", "page up"),
            KeyAction::PageDown => ("page_down", "page down"),
            KeyAction::NextHunk => ("next_hunk", "next hunk"),
            KeyAction::PrevHunk => ("prev_hunk", "previous hunk"),
            KeyAction::SortRows => ("sort_rows", "sort rows by fitness"),
            KeyAction::FilterColumns => ("filter_columns", "cycle the column filter"),
            KeyAction::ToggleRaw => ("toggle_raw", "normalized or raw log"),
            KeyAction::ToggleSideBySide => ("toggle_side_by_side", "unified or side-by-side diff"),
            KeyAction::Screen1 => ("screen1", "screen 1"),
            KeyAction::Screen2 => ("screen2", "screen 2"),
            KeyAction::Screen3 => ("screen3", "screen 3"),
            KeyAction::Screen4 => ("screen4", "screen 4"),
            KeyAction::Screen5 => ("screen5", "screen 5"),
            KeyAction::Screen6 => ("screen6", "screen 6"),
            KeyAction::Save => ("save", "save"),
            KeyAction::Cancel => ("cancel", "cancel"),
        }
    }

    fn from_name(name: &str) -> Option<KeyAction> {
        KeyAction::ALL.iter().copied().find(|a| a.name() == name)
    }
}

impl std::fmt::Display for KeyAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a binding applies: everywhere, on one screen, or in one widget. The snake_case name is
/// the table in a keymap file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyContext {
    Global,
    Timeline,
    Grid,
    Pair,
    Why,
    Curate,
    Transcript,
    Editor,
    Picker,
}

impl KeyContext {
    pub const ALL: &'static [KeyContext] = &[
        KeyContext::Global,
        KeyContext::Timeline,
        KeyContext::Grid,
        KeyContext::Pair,
        KeyContext::Why,
        KeyContext::Curate,
        KeyContext::Transcript,
        KeyContext::Editor,
        KeyContext::Picker,
    ];

    /// The table in a keymap file (the serde name).
    pub fn name(self) -> &'static str {
        match self {
            KeyContext::Global => "global",
            KeyContext::Timeline => "timeline",
            KeyContext::Grid => "grid",
            KeyContext::Pair => "pair",
            KeyContext::Why => "why",
            KeyContext::Curate => "curate",
            KeyContext::Transcript => "transcript",
            KeyContext::Editor => "editor",
            KeyContext::Picker => "picker",
        }
    }

    fn from_name(name: &str) -> Option<KeyContext> {
        KeyContext::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// Whether global bindings apply here when the context has none for a key. Not where keys
    /// type text: `q` in the editor is a letter, not quit.
    fn falls_back_to_global(self) -> bool {
        !matches!(
            self,
            KeyContext::Global | KeyContext::Editor | KeyContext::Picker
        )
    }
}

impl std::fmt::Display for KeyContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum KeymapError {
    #[error("cannot read keymap file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file} line {line}, column {column}: {message}; fix the TOML syntax there")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{file} line {line}, column {column}: `{key}` is not a context; put bindings in a table named for where they apply, one of: {contexts}"
    )]
    UnknownContext {
        file: String,
        line: usize,
        column: usize,
        key: String,
        contexts: String,
    },
    #[error(
        "{file} line {line}, column {column}, [{context}]: `{key}` is not an action; actions are: {actions}"
    )]
    UnknownAction {
        file: String,
        line: usize,
        column: usize,
        context: KeyContext,
        key: String,
        actions: String,
    },
    #[error("{file} line {line}, column {column}, [{context}] {action}: key `{key}`: {problem}")]
    BadKey {
        file: String,
        line: usize,
        column: usize,
        context: KeyContext,
        action: KeyAction,
        key: String,
        problem: String,
    },
    #[error("{file} line {line}, column {column}, [{context}] {action}: {problem}")]
    BadValue {
        file: String,
        line: usize,
        column: usize,
        context: KeyContext,
        action: KeyAction,
        problem: String,
    },
    #[error(
        "{file} line {line}, column {column}, [{context}] {action}: key `{key}` is already bound to `{other}` on line {other_line}; a key does one thing in a context, so bind it to one of them"
    )]
    Conflict {
        file: String,
        line: usize,
        column: usize,
        context: KeyContext,
        action: KeyAction,
        key: String,
        other: KeyAction,
        other_line: usize,
    },
}

/// One key with its modifiers, in the one form that both a file and a terminal event reduce to
/// (see [`Key::from_event`]), so that matching is plain equality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    code: KeyCode,
    /// Only CONTROL, ALT and SHIFT; SHIFT never with a character (it is in the character).
    mods: KeyModifiers,
}

impl Key {
    fn new(code: KeyCode, mods: KeyModifiers) -> Key {
        let mut mods = mods & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match code {
            KeyCode::BackTab => {
                mods |= KeyModifiers::SHIFT;
                KeyCode::Tab
            }
            KeyCode::Char(c) => {
                // Terminals differ on whether `G` comes with SHIFT; the letter says it already.
                let shifted = mods.contains(KeyModifiers::SHIFT);
                mods.remove(KeyModifiers::SHIFT);
                let mut upper = c.to_uppercase();
                match (upper.next(), upper.next()) {
                    (Some(u), None) if shifted && c.is_lowercase() => KeyCode::Char(u),
                    _ => KeyCode::Char(c),
                }
            }
            other => other,
        };
        Key { code, mods }
    }

    /// The key a terminal event means, or `None` for releases and for keys held with Super,
    /// Hyper or Meta, which no binding can name.
    fn from_event(ev: &KeyEvent) -> Option<Key> {
        let unnamed = KeyModifiers::SUPER | KeyModifiers::HYPER | KeyModifiers::META;
        if !matches!(ev.kind, KeyEventKind::Press | KeyEventKind::Repeat)
            || ev.modifiers.intersects(unnamed)
        {
            return None;
        }
        Some(Key::new(ev.code, ev.modifiers))
    }

    /// Reads `Ctrl-d`, `Shift-Tab`, `G`, `?`, `Space`; the error says what is wrong.
    fn parse(spec: &str) -> Result<Key, String> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = spec;
        // `-` and `Ctrl--` name the minus key: a modifier is only a prefix with a key after it.
        while rest.chars().nth(1).is_some() {
            let Some((modifier, tail)) = rest.split_once('-').filter(|(_, t)| !t.is_empty()) else {
                break;
            };
            let flag = match modifier.to_ascii_lowercase().as_str() {
                "ctrl" => KeyModifiers::CONTROL,
                "alt" => KeyModifiers::ALT,
                "shift" => KeyModifiers::SHIFT,
                _ => {
                    return Err(format!(
                        "unknown modifier `{modifier}`; use Ctrl-, Alt- or Shift-"
                    ));
                }
            };
            if mods.contains(flag) {
                return Err(format!("`{modifier}-` is there twice"));
            }
            mods |= flag;
            rest = tail;
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (None, _) => return Err("no key; write a character or a key name".to_string()),
            (Some(c), None) => KeyCode::Char(c),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" => KeyCode::Enter,
                "esc" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "backspace" => KeyCode::Backspace,
                "delete" => KeyCode::Delete,
                "insert" => KeyCode::Insert,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pageup" => KeyCode::PageUp,
                "pagedown" => KeyCode::PageDown,
                "space" => KeyCode::Char(' '),
                name => match name.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                    Some(n @ 1..=12) => KeyCode::F(n),
                    _ => {
                        return Err(format!(
                            "unknown key name `{rest}`; use one character or one of Enter, Esc, Tab, Backspace, Delete, Insert, Left, Right, Up, Down, Home, End, PageUp, PageDown, Space, F1-F12"
                        ));
                    }
                },
            },
        };
        Ok(Key::new(code, mods))
    }

    /// The key as people read it: `q`, `Shift-Tab`, `Ctrl-d`, `Space`.
    fn display(self) -> String {
        let mut out = String::new();
        for (flag, prefix) in [
            (KeyModifiers::CONTROL, "Ctrl-"),
            (KeyModifiers::ALT, "Alt-"),
            (KeyModifiers::SHIFT, "Shift-"),
        ] {
            if self.mods.contains(flag) {
                out.push_str(prefix);
            }
        }
        let name = match self.code {
            KeyCode::Char(' ') => "Space",
            KeyCode::Char(c) => {
                out.push(c);
                return out;
            }
            KeyCode::F(n) => {
                out.push_str(&format!("F{n}"));
                return out;
            }
            KeyCode::Enter => "Enter",
            KeyCode::Esc => "Esc",
            KeyCode::Tab => "Tab",
            KeyCode::Backspace => "Backspace",
            KeyCode::Delete => "Delete",
            KeyCode::Insert => "Insert",
            KeyCode::Left => "Left",
            KeyCode::Right => "Right",
            KeyCode::Up => "Up",
            KeyCode::Down => "Down",
            KeyCode::Home => "Home",
            KeyCode::End => "End",
            KeyCode::PageUp => "PageUp",
            KeyCode::PageDown => "PageDown",
            // Only the keys above can be parsed, so no binding holds another.
            _ => "?",
        };
        out.push_str(name);
        out
    }
}

/// Every binding, and the reverse index a lookup uses.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: BTreeMap<(KeyContext, KeyAction), Vec<Key>>,
    lookup: HashMap<(KeyContext, Key), KeyAction>,
}

impl Keymap {
    /// The defaults, with `override_file` merged over them when it exists (most people never
    /// write one, so a missing file is not an error; one that does not parse is).
    pub fn load(override_file: Option<&Path>) -> Result<Keymap, KeymapError> {
        let mut bindings = BTreeMap::new();
        for b in parse(DEFAULT_KEYMAP, DEFAULT_FILE)? {
            bindings.insert((b.context, b.action), b.keys);
        }
        if let Some(path) = override_file {
            let text = read_if_present(path).map_err(|source| KeymapError::Read {
                path: path.to_path_buf(),
                source,
            })?;
            if let Some(text) = text {
                for b in parse(&text, &path.display().to_string())? {
                    for ((context, _), keys) in bindings.iter_mut() {
                        if *context == b.context {
                            keys.retain(|k| !b.keys.contains(k));
                        }
                    }
                    bindings.insert((b.context, b.action), b.keys);
                }
            }
        }
        bindings.retain(|_, keys| !keys.is_empty());
        let lookup = bindings
            .iter()
            .flat_map(|(&(ctx, action), keys)| keys.iter().map(move |&k| ((ctx, k), action)))
            .collect();
        Ok(Keymap { bindings, lookup })
    }

    /// The user's keymap file (config dir / keymap.toml), if the platform has a config dir.
    pub fn default_override_file() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "evootter")
            .map(|d| d.config_dir().join("keymap.toml"))
    }

    /// What `ev` asks for in `ctx`: the context's binding, else (outside the editor and the
    /// picker) the global one.
    pub fn action(&self, ctx: KeyContext, ev: &KeyEvent) -> Option<KeyAction> {
        let key = Key::from_event(ev)?;
        self.lookup.get(&(ctx, key)).copied().or_else(|| {
            ctx.falls_back_to_global()
                .then(|| self.lookup.get(&(KeyContext::Global, key)).copied())
                .flatten()
        })
    }

    /// The keys bound to `action` in `ctx` (or globally), as shown to people: `q`, `Shift-Tab`,
    /// `Ctrl-d`. A global key that `ctx` binds to something else is left out: it does not do
    /// `action` there.
    pub fn keys(&self, ctx: KeyContext, action: KeyAction) -> Vec<String> {
        let mut keys: Vec<Key> = self
            .bindings
            .get(&(ctx, action))
            .cloned()
            .unwrap_or_default();
        if ctx.falls_back_to_global() {
            for &k in self
                .bindings
                .get(&(KeyContext::Global, action))
                .into_iter()
                .flatten()
            {
                if !self.lookup.contains_key(&(ctx, k)) && !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        keys.into_iter().map(Key::display).collect()
    }

    /// Every (context, action, keys) binding, for the help overlay, in a stable order: contexts
    /// and actions in declaration order, keys as written.
    pub fn bindings(&self) -> Vec<(KeyContext, KeyAction, Vec<String>)> {
        self.bindings
            .iter()
            .map(|(&(ctx, action), keys)| (ctx, action, keys.iter().map(|k| k.display()).collect()))
            .collect()
    }
}

/// One `action = keys` line of a file.
struct Binding {
    context: KeyContext,
    action: KeyAction,
    keys: Vec<Key>,
}

/// Reads a keymap file: every binding in it, checked (known contexts, actions and keys; no key
/// bound twice in one context).
fn parse(text: &str, file: &str) -> Result<Vec<Binding>, KeymapError> {
    let place = |offset: usize| Place::at(text, offset);
    let doc = DeTable::parse(text).map_err(|e| {
        let (p, message) = syntax_error(&e, text);
        KeymapError::Syntax {
            file: file.to_string(),
            line: p.line,
            column: p.column,
            message,
        }
    })?;
    let mut out = Vec::new();
    for (ctx_key, table) in entries_in_order(doc.get_ref()) {
        let unknown_context = || {
            let p = place(ctx_key.span().start);
            KeymapError::UnknownContext {
                file: file.to_string(),
                line: p.line,
                column: p.column,
                key: ctx_key.get_ref().to_string(),
                contexts: names(KeyContext::ALL.iter().map(|c| c.name())),
            }
        };
        let context = KeyContext::from_name(ctx_key.get_ref()).ok_or_else(unknown_context)?;
        let DeValue::Table(table) = table.get_ref() else {
            return Err(unknown_context());
        };
        // Where each key of this context was bound, to report a second binding.
        let mut seen: HashMap<Key, (KeyAction, usize)> = HashMap::new();
        for (action_key, value) in entries_in_order(table) {
            let p = place(action_key.span().start);
            let action = KeyAction::from_name(action_key.get_ref()).ok_or_else(|| {
                KeymapError::UnknownAction {
                    file: file.to_string(),
                    line: p.line,
                    column: p.column,
                    context,
                    key: action_key.get_ref().to_string(),
                    actions: names(KeyAction::ALL.iter().map(|a| a.name())),
                }
            })?;
            let specs: Vec<&Spanned<DeValue<'_>>> = match value.get_ref() {
                DeValue::Array(items) => items.iter().collect(),
                _ => vec![value],
            };
            let mut keys = Vec::new();
            for spec in specs {
                let p = place(spec.span().start);
                let DeValue::String(s) = spec.get_ref() else {
                    return Err(KeymapError::BadValue {
                        file: file.to_string(),
                        line: p.line,
                        column: p.column,
                        context,
                        action,
                        problem: format!(
                            "{} is not a key; write a key such as \"q\" or a list such as [\"q\", \"Ctrl-c\"]",
                            describe(spec.get_ref())
                        ),
                    });
                };
                let key = Key::parse(s).map_err(|problem| KeymapError::BadKey {
                    file: file.to_string(),
                    line: p.line,
                    column: p.column,
                    context,
                    action,
                    key: s.to_string(),
                    problem,
                })?;
                match seen.get(&key) {
                    Some(&(other, other_line)) if other != action => {
                        return Err(KeymapError::Conflict {
                            file: file.to_string(),
                            line: p.line,
                            column: p.column,
                            context,
                            action,
                            key: key.display(),
                            other,
                            other_line,
                        });
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(key, (action, p.line));
                        keys.push(key);
                    }
                }
            }
            out.push(Binding {
                context,
                action,
                keys,
            });
        }
    }
    Ok(out)
}

fn names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use ratatui::crossterm::event::KeyEventState;
    use serde::Deserialize;
    use serde::de::IntoDeserializer;
    use serde::de::value::{Error as ValueError, StrDeserializer};

    use super::*;

    fn press(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    fn ch(c: char) -> KeyEvent {
        press(KeyCode::Char(c), KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        press(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn defaults() -> Keymap {
        Keymap::load(None).unwrap()
    }

    fn user_keymap(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keymap.toml");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn load_error(text: &str) -> (String, PathBuf) {
        let (_dir, path) = user_keymap(text);
        let err = Keymap::load(Some(&path)).unwrap_err();
        (err.to_string(), path)
    }

    #[test]
    fn names_are_the_serde_names() {
        for &action in KeyAction::ALL {
            let de: StrDeserializer<'_, ValueError> = action.name().into_deserializer();
            assert_eq!(KeyAction::deserialize(de).unwrap(), action);
        }
        for &ctx in KeyContext::ALL {
            let de: StrDeserializer<'_, ValueError> = ctx.name().into_deserializer();
            assert_eq!(KeyContext::deserialize(de).unwrap(), ctx);
        }
        let mut sorted = KeyAction::ALL.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), KeyAction::ALL.len());
    }

    #[test]
    fn default_keys_map_as_documented() {
        let km = defaults();
        let g = KeyContext::Grid;
        let none = KeyModifiers::NONE;
        let cases = [
            (ch('?'), KeyAction::Help),
            (ch('q'), KeyAction::Quit),
            (ctrl('c'), KeyAction::Quit),
            (ch('n'), KeyAction::Step),
            (ch('r'), KeyAction::RunToGate),
            (press(KeyCode::Tab, none), KeyAction::NextScreen),
            (
                press(KeyCode::BackTab, KeyModifiers::SHIFT),
                KeyAction::PrevScreen,
            ),
            (press(KeyCode::BackTab, none), KeyAction::PrevScreen),
            (ch('h'), KeyAction::Left),
            (ch('j'), KeyAction::Down),
            (ch('k'), KeyAction::Up),
            (ch('l'), KeyAction::Right),
            (press(KeyCode::Left, none), KeyAction::Left),
            (press(KeyCode::Down, none), KeyAction::Down),
            (press(KeyCode::Up, none), KeyAction::Up),
            (press(KeyCode::Right, none), KeyAction::Right),
            (press(KeyCode::Enter, none), KeyAction::Open),
            (press(KeyCode::Esc, none), KeyAction::Back),
            (ch('x'), KeyAction::Veto),
            (ch('e'), KeyAction::Edit),
            (ch('a'), KeyAction::Add),
            (ch('p'), KeyAction::Pin),
            (ch('u'), KeyAction::Undo),
            (ch('c'), KeyAction::Continue),
            (ch('t'), KeyAction::Transcript),
            (ch('w'), KeyAction::WhyNotKilled),
            (ch('g'), KeyAction::First),
            (ch('G'), KeyAction::Last),
            (
                press(KeyCode::Char('G'), KeyModifiers::SHIFT),
                KeyAction::Last,
            ),
            (
                press(KeyCode::Char('g'), KeyModifiers::SHIFT),
                KeyAction::Last,
            ),
            (press(KeyCode::Home, none), KeyAction::First),
            (press(KeyCode::End, none), KeyAction::Last),
            (press(KeyCode::PageUp, none), KeyAction::PageUp),
            (press(KeyCode::PageDown, none), KeyAction::PageDown),
            (ctrl('u'), KeyAction::PageUp),
            (ctrl('d'), KeyAction::PageDown),
            (ch('s'), KeyAction::SortRows),
            (ch('f'), KeyAction::FilterColumns),
            (ch('1'), KeyAction::Screen1),
            (ch('6'), KeyAction::Screen6),
        ];
        for (ev, action) in cases {
            assert_eq!(km.action(g, &ev), Some(action), "{ev:?}");
        }
        let pair = KeyContext::Pair;
        for (ev, action) in [
            (ch(']'), KeyAction::NextHunk),
            (ch('['), KeyAction::PrevHunk),
            (ch('n'), KeyAction::NextHunk),
            (ch('N'), KeyAction::PrevHunk),
            (
                press(KeyCode::Char('N'), KeyModifiers::SHIFT),
                KeyAction::PrevHunk,
            ),
            (ch('v'), KeyAction::ToggleRaw),
            (ch('o'), KeyAction::ToggleSideBySide),
        ] {
            assert_eq!(km.action(pair, &ev), Some(action), "{ev:?}");
        }
        assert_eq!(km.action(g, &ch('z')), None);
        assert_eq!(km.action(g, &ctrl('q')), None);
    }

    #[test]
    fn a_context_binding_comes_before_the_global_one() {
        let km = defaults();
        assert_eq!(
            km.action(KeyContext::Pair, &ch('n')),
            Some(KeyAction::NextHunk)
        );
        assert_eq!(km.action(KeyContext::Grid, &ch('n')), Some(KeyAction::Step));
        assert_eq!(
            km.action(KeyContext::Global, &ch('n')),
            Some(KeyAction::Step)
        );
        // Global bindings apply on screens...
        assert_eq!(km.action(KeyContext::Pair, &ch('q')), Some(KeyAction::Quit));
        // ...but not where keys type text, nor are one screen's keys global.
        assert_eq!(km.action(KeyContext::Editor, &ch('q')), None);
        assert_eq!(km.action(KeyContext::Global, &ch('s')), None);
        assert_eq!(
            km.action(KeyContext::Editor, &ctrl('s')),
            Some(KeyAction::Save)
        );
        assert_eq!(
            km.action(KeyContext::Picker, &press(KeyCode::Esc, KeyModifiers::NONE)),
            Some(KeyAction::Cancel)
        );
    }

    #[test]
    fn only_presses_and_repeats_match() {
        let km = defaults();
        for (kind, expected) in [
            (KeyEventKind::Press, Some(KeyAction::Quit)),
            (KeyEventKind::Repeat, Some(KeyAction::Quit)),
            (KeyEventKind::Release, None),
        ] {
            let ev = KeyEvent::new_with_kind_and_state(
                KeyCode::Char('q'),
                KeyModifiers::NONE,
                kind,
                KeyEventState::NONE,
            );
            assert_eq!(km.action(KeyContext::Grid, &ev), expected);
        }
        let super_q = press(KeyCode::Char('q'), KeyModifiers::SUPER);
        assert_eq!(km.action(KeyContext::Grid, &super_q), None);
    }

    #[test]
    fn keys_are_shown_as_people_write_them() {
        let km = defaults();
        assert_eq!(km.keys(KeyContext::Grid, KeyAction::Quit), ["q", "Ctrl-c"]);
        assert_eq!(
            km.keys(KeyContext::Grid, KeyAction::PrevScreen),
            ["Shift-Tab"]
        );
        assert_eq!(
            km.keys(KeyContext::Grid, KeyAction::PageDown),
            ["PageDown", "Ctrl-d"]
        );
        assert_eq!(km.keys(KeyContext::Pair, KeyAction::NextHunk), ["]", "n"]);
        // `n` does not step in the pair view, so it is not shown there.
        assert_eq!(
            km.keys(KeyContext::Pair, KeyAction::Step),
            Vec::<String>::new()
        );
        assert_eq!(km.keys(KeyContext::Grid, KeyAction::Step), ["n"]);
        assert_eq!(
            km.keys(KeyContext::Editor, KeyAction::Quit),
            Vec::<String>::new()
        );
        for spec in [
            "Space",
            "Alt-Enter",
            "F5",
            "Ctrl-Shift-Left",
            "Shift-g",
            "-",
        ] {
            let shown = Key::parse(spec).unwrap().display();
            let expected = if spec == "Shift-g" { "G" } else { spec };
            assert_eq!(shown, expected);
            assert_eq!(Key::parse(&shown), Key::parse(spec));
        }
    }

    #[test]
    fn bindings_cover_every_context_in_a_stable_order() {
        let km = defaults();
        let all = km.bindings();
        assert_eq!(all, km.bindings());
        assert_eq!(
            all.first(),
            Some(&(KeyContext::Global, KeyAction::Help, vec!["?".to_string()]))
        );
        let mut sorted = all.clone();
        sorted.sort_by_key(|(c, a, _)| (*c, *a));
        assert_eq!(all, sorted);
        assert!(all.contains(&(
            KeyContext::Pair,
            KeyAction::PrevHunk,
            vec!["[".to_string(), "N".to_string()]
        )));
        assert!(all.iter().all(|(_, _, keys)| !keys.is_empty()));
    }

    #[test]
    fn a_user_binding_replaces_the_default_keys_of_that_action() {
        let (_dir, path) = user_keymap("[global]\nquit = \"Q\"\n");
        let km = Keymap::load(Some(&path)).unwrap();
        assert_eq!(km.action(KeyContext::Grid, &ch('Q')), Some(KeyAction::Quit));
        assert_eq!(km.action(KeyContext::Grid, &ch('q')), None);
        assert_eq!(km.action(KeyContext::Grid, &ctrl('c')), None);
        assert_eq!(km.keys(KeyContext::Grid, KeyAction::Quit), ["Q"]);
        // Everything else keeps its default.
        assert_eq!(km.action(KeyContext::Grid, &ch('n')), Some(KeyAction::Step));
        assert_eq!(
            km.action(KeyContext::Pair, &ch('n')),
            Some(KeyAction::NextHunk)
        );
    }

    #[test]
    fn a_user_binding_takes_its_key_from_other_actions_and_may_unbind() {
        let (_dir, path) = user_keymap("[global]\nquit = \"x\"\nhelp = []\n[pair]\nstep = \"s\"\n");
        let km = Keymap::load(Some(&path)).unwrap();
        assert_eq!(km.action(KeyContext::Grid, &ch('x')), Some(KeyAction::Quit));
        assert_eq!(
            km.keys(KeyContext::Grid, KeyAction::Veto),
            Vec::<String>::new()
        );
        assert_eq!(km.action(KeyContext::Grid, &ch('?')), None);
        assert_eq!(km.action(KeyContext::Pair, &ch('s')), Some(KeyAction::Step));
        assert_eq!(
            km.action(KeyContext::Grid, &ch('s')),
            Some(KeyAction::SortRows)
        );
        assert!(
            km.bindings()
                .iter()
                .all(|(c, a, _)| !(*c == KeyContext::Global && *a == KeyAction::Help))
        );
    }

    #[test]
    fn a_missing_user_file_means_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let km = Keymap::load(Some(&dir.path().join("keymap.toml"))).unwrap();
        assert_eq!(km.bindings(), defaults().bindings());
    }

    #[test]
    fn an_unknown_action_names_file_line_and_the_actions() {
        let (msg, path) = load_error("# mine\n[global]\nquitt = \"q\"\n");
        assert!(
            msg.starts_with(&format!("{} line 3, column 1, [global]:", path.display())),
            "{msg}"
        );
        assert!(
            msg.contains("`quitt` is not an action; actions are: help, quit, step"),
            "{msg}"
        );
    }

    #[test]
    fn an_unknown_context_names_file_line_and_the_contexts() {
        let (msg, _) = load_error("quit = \"Q\"\n");
        assert!(
            msg.contains("line 1, column 1: `quit` is not a context"),
            "{msg}"
        );
        assert!(msg.contains("global, timeline, grid, pair"), "{msg}");
        let (msg, _) = load_error("[gird]\nstep = \"n\"\n");
        assert!(
            msg.contains("line 1, column 2: `gird` is not a context"),
            "{msg}"
        );
    }

    #[test]
    fn bad_keys_name_file_line_key_and_the_fix() {
        let (msg, path) = load_error("[global]\n\n\n\nquit = [\"Q\", \"Ctl-x\"]\n");
        assert_eq!(
            msg,
            format!(
                "{} line 5, column 14, [global] quit: key `Ctl-x`: unknown modifier `Ctl`; use Ctrl-, Alt- or Shift-",
                path.display()
            )
        );
        let (msg, _) = load_error("[grid]\nsort_rows = \"Hyper\"\n");
        assert!(
            msg.contains(
                "line 2, column 13, [grid] sort_rows: key `Hyper`: unknown key name `Hyper`"
            ),
            "{msg}"
        );
        assert!(msg.contains("PageUp"), "{msg}");
        let (msg, _) = load_error("[grid]\nsort_rows = 5\n");
        assert!(
            msg.contains("line 2, column 13, [grid] sort_rows: `5` is not a key"),
            "{msg}"
        );
        let (msg, _) = load_error("[grid]\nsort_rows = \"F13\"\n");
        assert!(msg.contains("unknown key name `F13`"), "{msg}");
    }

    #[test]
    fn a_key_bound_twice_in_one_context_is_an_error() {
        let (msg, _) = load_error("[grid]\nsort_rows = \"z\"\nfilter_columns = [\"f\", \"z\"]\n");
        assert!(
            msg.contains(
                "line 3, column 24, [grid] filter_columns: key `z` is already bound to `sort_rows` on line 2"
            ),
            "{msg}"
        );
    }

    #[test]
    fn bad_toml_syntax_names_file_and_line() {
        let (_dir, path) = user_keymap("[global]\nquit = \"Q\n");
        let err = Keymap::load(Some(&path)).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, KeymapError::Syntax { line: 2, .. }), "{msg}");
        assert!(
            msg.starts_with(&format!("{} line 2, column", path.display())),
            "{msg}"
        );
        let (msg, _) = load_error("[global]\nquit = \"q\"\nquit = \"Q\"\n");
        assert!(
            msg.contains("line 3, column 1: duplicate key (at `quit`); fix the TOML syntax"),
            "{msg}"
        );
    }
}
