//! Key bindings for the TUI: which key means which [`Action`] in which [`KeyContext`]. A
//! binding names the action by its serde name (`run_to_gate`), so the reducer's own type is
//! the keymap's vocabulary: there is no second list of what keys can do.
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

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use toml::Spanned;
use toml::de::DeValue;

use super::action::Action;
use super::theme::toml_place::{
    Place, TomlFileError, describe, entries_in_order, parse_table, read_if_present,
};

const DEFAULT_KEYMAP: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/keymaps/default.toml"));
const DEFAULT_FILE: &str = "keymaps/default.toml (built in)";

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
    /// The Model screen; keymap files written before it was named so call its table
    /// `[transcript]`, which still loads.
    #[serde(alias = "transcript")]
    Model,
    Editor,
    Picker,
    /// The Batch screen (`evootter open BATCH_DIR`): its own keys only.
    Batch,
    /// A y/n question.
    Confirm,
    /// A one-line prompt (search, go to, write to): keys type text.
    Prompt,
    /// A search is active on the screen: before the screen's own keys.
    Search,
}

impl KeyContext {
    pub const ALL: &'static [KeyContext] = &[
        KeyContext::Global,
        KeyContext::Timeline,
        KeyContext::Grid,
        KeyContext::Pair,
        KeyContext::Why,
        KeyContext::Curate,
        KeyContext::Model,
        KeyContext::Editor,
        KeyContext::Picker,
        KeyContext::Batch,
        KeyContext::Confirm,
        KeyContext::Prompt,
        KeyContext::Search,
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
            KeyContext::Model => "model",
            KeyContext::Editor => "editor",
            KeyContext::Picker => "picker",
            KeyContext::Batch => "batch",
            KeyContext::Confirm => "confirm",
            KeyContext::Prompt => "prompt",
            KeyContext::Search => "search",
        }
    }

    fn from_name(name: &str) -> Option<KeyContext> {
        if name == "transcript" {
            return Some(KeyContext::Model);
        }
        KeyContext::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// Whether global bindings apply here when the context has none for a key. Not where keys
    /// type text (`q` in the editor is a letter, not quit), nor where a question waits for
    /// its answer.
    fn falls_back_to_global(self) -> bool {
        !matches!(
            self,
            KeyContext::Global
                | KeyContext::Editor
                | KeyContext::Picker
                | KeyContext::Batch
                | KeyContext::Confirm
                | KeyContext::Prompt
                | KeyContext::Search
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
    #[error(transparent)]
    File(#[from] TomlFileError),
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
    #[error(
        "{file} line {line}, column {column}, [{context}]: `{key}` shows the screen these keys are read on, so it would do nothing there; the key that opens it from any screen goes under [global]"
    )]
    OwnScreen {
        file: String,
        line: usize,
        column: usize,
        context: KeyContext,
        key: String,
    },
    #[error("{file} line {line}, column {column}, [{context}] {action}: key `{key}`: {problem}")]
    BadKey {
        file: String,
        line: usize,
        column: usize,
        context: KeyContext,
        action: String,
        key: String,
        problem: String,
    },
    #[error("{file} line {line}, column {column}, [{context}] {action}: {problem}")]
    BadValue {
        file: String,
        line: usize,
        column: usize,
        context: KeyContext,
        action: String,
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
        action: String,
        key: String,
        other: String,
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
    /// In a stable order: contexts in declaration order, and in each the actions as the
    /// default file lists them, then the ones only the user's file binds.
    bindings: Vec<Binding>,
    lookup: HashMap<(KeyContext, Key), usize>,
}

/// One `action = keys` line of a file.
#[derive(Debug, Clone)]
struct Binding {
    context: KeyContext,
    /// The action's serde name, as written.
    name: String,
    action: Action,
    keys: Vec<Key>,
}

/// A binding as the help and the footer show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub context: KeyContext,
    pub name: String,
    pub action: Action,
    pub keys: Vec<String>,
}

impl Keymap {
    /// The defaults, with `override_file` merged over them when it exists (most people never
    /// write one, so a missing file is not an error; one that does not parse is).
    pub fn load(override_file: Option<&Path>) -> Result<Keymap, KeymapError> {
        let mut bindings: Vec<Binding> = parse(DEFAULT_KEYMAP, DEFAULT_FILE)?;
        if let Some(path) = override_file {
            let text = read_if_present(path).map_err(|source| TomlFileError::Read {
                kind: "keymap",
                path: path.to_path_buf(),
                source,
            })?;
            if let Some(text) = text {
                for b in parse(&text, &path.display().to_string())? {
                    for other in bindings.iter_mut().filter(|o| o.context == b.context) {
                        other.keys.retain(|k| !b.keys.contains(k));
                    }
                    match bindings
                        .iter_mut()
                        .find(|o| o.context == b.context && o.name == b.name)
                    {
                        Some(o) => o.keys = b.keys,
                        None => bindings.push(b),
                    }
                }
            }
        }
        bindings.retain(|b| !b.keys.is_empty());
        // Stable: within a context the file's order stays.
        bindings.sort_by_key(|b| b.context);
        let lookup = bindings
            .iter()
            .enumerate()
            .flat_map(|(i, b)| b.keys.iter().map(move |&k| ((b.context, k), i)))
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
    pub fn action(&self, ctx: KeyContext, ev: &KeyEvent) -> Option<Action> {
        let key = Key::from_event(ev)?;
        let i = self.lookup.get(&(ctx, key)).copied().or_else(|| {
            ctx.falls_back_to_global()
                .then(|| self.lookup.get(&(KeyContext::Global, key)).copied())
                .flatten()
        })?;
        Some(self.bindings[i].action.clone())
    }

    /// What `ev` asks for where several contexts apply, the first first (a search's keys
    /// before the screen's); the last context's global fallback applies.
    pub fn action_in(&self, contexts: &[KeyContext], ev: &KeyEvent) -> Option<Action> {
        let key = Key::from_event(ev)?;
        for ctx in contexts {
            if let Some(&i) = self.lookup.get(&(*ctx, key)) {
                return Some(self.bindings[i].action.clone());
            }
        }
        let last = contexts.last()?;
        self.action(*last, ev)
    }

    /// The keys that do `action` (by name) in `ctx` (or globally), as shown to people: `q`,
    /// `Shift-Tab`, `Ctrl-d`. A global key that `ctx` binds to something else is left out:
    /// it does not do `action` there.
    /// The first keys of the acts messages name (the defaults' where one is unbound).
    pub fn act_keys(&self) -> super::state::ActKeys {
        let first = |name: &str, default: String| {
            self.keys(KeyContext::Curate, name)
                .into_iter()
                .next()
                .unwrap_or(default)
        };
        let d = super::state::ActKeys::default();
        super::state::ActKeys {
            undo: first("undo", d.undo),
            redo: first("redo", d.redo),
            proceed: first("continue", d.proceed),
            veto: first("veto", d.veto),
            pin: first("pin", d.pin),
        }
    }

    pub fn keys(&self, ctx: KeyContext, action: &str) -> Vec<String> {
        self.offered(ctx)
            .into_iter()
            .find(|s| s.name == action)
            .map(|s| s.keys)
            .unwrap_or_default()
    }

    /// What keys do in `ctx`: the context's own bindings first, then (outside the editor and
    /// the picker) the global ones it does not take over, each with the keys that do it
    /// there. The footer offers these.
    pub fn offered(&self, ctx: KeyContext) -> Vec<Shown> {
        let own = self.bindings.iter().filter(|b| b.context == ctx);
        let global = self
            .bindings
            .iter()
            .filter(|b| ctx.falls_back_to_global() && b.context == KeyContext::Global);
        let mut out: Vec<Shown> = vec![];
        for b in own.chain(global) {
            let keys: Vec<String> = b
                .keys
                .iter()
                .filter(|&&k| b.context == ctx || !self.lookup.contains_key(&(ctx, k)))
                .map(|k| k.display())
                .collect();
            if keys.is_empty() {
                continue;
            }
            match out.iter_mut().find(|s| s.name == b.name) {
                Some(s) => s.keys.extend(keys),
                None => out.push(Shown {
                    context: ctx,
                    name: b.name.clone(),
                    action: b.action.clone(),
                    keys,
                }),
            }
        }
        out
    }

    /// Every binding, for the help overlay, in a stable order: contexts in declaration
    /// order, actions as the files list them, keys as written.
    pub fn bindings(&self) -> Vec<Shown> {
        self.bindings
            .iter()
            .map(|b| Shown {
                context: b.context,
                name: b.name.clone(),
                action: b.action.clone(),
                keys: b.keys.iter().map(|k| k.display()).collect(),
            })
            .collect()
    }
}

/// The names a keymap may bind: those the default file binds, in its order.
fn action_names() -> String {
    let mut seen: Vec<String> = vec![];
    if let Ok(defaults) = parse(DEFAULT_KEYMAP, DEFAULT_FILE) {
        for b in defaults {
            if !seen.contains(&b.name) {
                seen.push(b.name);
            }
        }
    }
    seen.join(", ")
}

/// Reads a keymap file: every binding in it, checked (known contexts, actions and keys; no key
/// bound twice in one context).
/// Whether `action` shows the very screen whose keys `context` holds: bound there, it would
/// do nothing (a screen's table is read only on that screen).
fn shows_own_screen(context: KeyContext, action: &Action) -> bool {
    matches!(
        (context, action),
        (KeyContext::Timeline, Action::Timeline)
            | (KeyContext::Grid, Action::Grid)
            | (KeyContext::Pair, Action::Pair)
            | (KeyContext::Why, Action::Why)
            | (KeyContext::Curate, Action::Curate)
            | (KeyContext::Model, Action::Model)
    )
}

fn parse(text: &str, file: &str) -> Result<Vec<Binding>, KeymapError> {
    let place = |offset: usize| Place::at(text, offset);
    let doc = parse_table(text, file)?;
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
        let mut seen: HashMap<Key, (String, usize)> = HashMap::new();
        for (action_key, value) in entries_in_order(table) {
            let p = place(action_key.span().start);
            let name = action_key.get_ref().to_string();
            let bound = Action::from_key_name(&name).ok_or_else(|| KeymapError::UnknownAction {
                file: file.to_string(),
                line: p.line,
                column: p.column,
                context,
                key: name.clone(),
                actions: if file == DEFAULT_FILE {
                    String::new()
                } else {
                    action_names()
                },
            })?;
            if shows_own_screen(context, &bound) {
                return Err(KeymapError::OwnScreen {
                    file: file.to_string(),
                    line: p.line,
                    column: p.column,
                    context,
                    key: name,
                });
            }
            let action = name.clone();
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
                        action: action.clone(),
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
                    action: action.clone(),
                    key: s.to_string(),
                    problem,
                })?;
                match seen.get(&key) {
                    Some((other, other_line)) if *other != action => {
                        return Err(KeymapError::Conflict {
                            file: file.to_string(),
                            line: p.line,
                            column: p.column,
                            context,
                            action: action.clone(),
                            key: key.display(),
                            other: other.clone(),
                            other_line: *other_line,
                        });
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(key, (action.clone(), p.line));
                        keys.push(key);
                    }
                }
            }
            out.push(Binding {
                context,
                name: action,
                action: bound,
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

    /// The keys messages name are the user's: a moved undo is named as moved.
    #[test]
    fn messages_name_the_users_keys() {
        let d = defaults().act_keys();
        assert_eq!(
            (d.undo.as_str(), d.redo.as_str(), d.proceed.as_str()),
            ("u", "U", "c")
        );
        let (_dir, path) = user_keymap("[curate]\nundo = \"z\"\n");
        let k = Keymap::load(Some(&path)).unwrap().act_keys();
        assert_eq!((k.undo.as_str(), k.redo.as_str()), ("z", "U"));
    }

    #[test]
    fn context_names_are_the_serde_names() {
        for &ctx in KeyContext::ALL {
            let de: StrDeserializer<'_, ValueError> = ctx.name().into_deserializer();
            assert_eq!(KeyContext::deserialize(de).unwrap(), ctx);
        }
    }

    #[test]
    fn every_default_binding_names_an_action_and_old_screen_names_still_work() {
        for b in defaults().bindings() {
            assert_eq!(Action::from_key_name(&b.name), Some(b.action.clone()));
        }
        let (_dir, path) = user_keymap("[global]\nscreen2 = \"F2\"\n");
        let km = Keymap::load(Some(&path)).unwrap();
        assert_eq!(
            km.action(KeyContext::Pair, &press(KeyCode::F(2), KeyModifiers::NONE)),
            Some(Action::Grid)
        );
    }

    #[test]
    fn a_screen_bound_in_its_own_table_is_refused_with_where_it_goes() {
        let (_dir, path) = user_keymap("[model]\nmodel = \"M\"\n");
        let err = Keymap::load(Some(&path)).unwrap_err().to_string();
        assert!(
            err.contains(
                "line 2, column 1, [model]: `model` shows the screen these keys are read on"
            ) && err.ends_with("goes under [global]"),
            "{err}"
        );
        // From another screen's table it is a shortcut, and works.
        let (_dir, path) = user_keymap("[timeline]\nmodel = \"M\"\n");
        let km = Keymap::load(Some(&path)).unwrap();
        assert_eq!(
            km.action(KeyContext::Timeline, &ch('M')),
            Some(Action::Model)
        );
    }

    #[test]
    fn a_keymap_written_when_the_model_screen_was_the_transcript_still_loads() {
        let (_dir, path) =
            user_keymap("[global]\ntranscript = \"F6\"\n\n[transcript]\nright = \"x\"\n");
        let km = Keymap::load(Some(&path)).unwrap();
        assert_eq!(
            km.action(KeyContext::Grid, &press(KeyCode::F(6), KeyModifiers::NONE)),
            Some(Action::Model)
        );
        assert_eq!(km.action(KeyContext::Model, &ch('x')), Some(Action::Right));
    }

    #[test]
    fn default_keys_map_as_documented() {
        let km = defaults();
        let g = KeyContext::Grid;
        let none = KeyModifiers::NONE;
        let cases = [
            (ch('?'), Action::Help),
            (ch('q'), Action::Quit),
            (ctrl('c'), Action::Quit),
            (ch('n'), Action::Step),
            (ch('r'), Action::RunToGate),
            (press(KeyCode::Tab, none), Action::NextScreen),
            (
                press(KeyCode::BackTab, KeyModifiers::SHIFT),
                Action::PrevScreen,
            ),
            (press(KeyCode::BackTab, none), Action::PrevScreen),
            (ch('h'), Action::Left),
            (ch('j'), Action::Down),
            (ch('k'), Action::Up),
            (ch('l'), Action::Right),
            (press(KeyCode::Left, none), Action::Left),
            (press(KeyCode::Down, none), Action::Down),
            (press(KeyCode::Up, none), Action::Up),
            (press(KeyCode::Right, none), Action::Right),
            (press(KeyCode::Enter, none), Action::Open),
            (press(KeyCode::Esc, none), Action::Back),
            (ch('c'), Action::Continue),
            (ch('t'), Action::Model),
            (ch('w'), Action::Explain),
            (ch('g'), Action::Goto),
            (ch('/'), Action::Search),
            (ch('y'), Action::WriteTest),
            (ch('G'), Action::Last),
            (press(KeyCode::Char('G'), KeyModifiers::SHIFT), Action::Last),
            (press(KeyCode::Char('g'), KeyModifiers::SHIFT), Action::Last),
            (press(KeyCode::Home, none), Action::First),
            (press(KeyCode::End, none), Action::Last),
            (press(KeyCode::PageUp, none), Action::PageUp),
            (press(KeyCode::PageDown, none), Action::PageDown),
            (ctrl('u'), Action::PageUp),
            (ctrl('d'), Action::PageDown),
            (ch('s'), Action::SortRows),
            (ch('f'), Action::FilterColumns),
            (ch('1'), Action::Timeline),
            (ch('6'), Action::Model),
        ];
        for (ev, action) in cases {
            assert_eq!(km.action(g, &ev), Some(action), "{ev:?}");
        }
        let pair = KeyContext::Pair;
        for (ev, action) in [
            (ch(']'), Action::NextHunk),
            (ch('['), Action::PrevHunk),
            (ch('n'), Action::NextHunk),
            (ch('N'), Action::PrevHunk),
            (
                press(KeyCode::Char('N'), KeyModifiers::SHIFT),
                Action::PrevHunk,
            ),
            (ch('v'), Action::ToggleRaw),
            (ch('o'), Action::ToggleSideBySide),
        ] {
            assert_eq!(km.action(pair, &ev), Some(action), "{ev:?}");
        }
        for (ev, action) in [
            (ch('x'), Action::Veto),
            (ch('e'), Action::Edit),
            (ch('a'), Action::Add),
            (ch('A'), Action::AddFile),
            (ch('p'), Action::Pin),
            (ch('u'), Action::Undo),
        ] {
            assert_eq!(
                km.action(KeyContext::Curate, &ev),
                Some(action.clone()),
                "{ev:?}"
            );
            // The Grid has the acts on a test (its selected row's) and undo; adding a test
            // is Curate's. No other screen acts.
            let on_grid = !matches!(action, Action::Add | Action::AddFile);
            assert_eq!(km.action(g, &ev), on_grid.then(|| action.clone()), "{ev:?}");
            assert_eq!(km.action(KeyContext::Timeline, &ev), None, "{ev:?}");
        }
        assert_eq!(km.action(g, &ch('z')), None);
        assert_eq!(km.action(g, &ctrl('q')), None);
    }

    #[test]
    fn a_context_binding_comes_before_the_global_one() {
        let km = defaults();
        assert_eq!(
            km.action(KeyContext::Pair, &ch('n')),
            Some(Action::NextHunk)
        );
        assert_eq!(km.action(KeyContext::Grid, &ch('n')), Some(Action::Step));
        assert_eq!(km.action(KeyContext::Global, &ch('n')), Some(Action::Step));
        // Global bindings apply on screens...
        assert_eq!(km.action(KeyContext::Pair, &ch('q')), Some(Action::Quit));
        // ...but not where keys type text, nor are one screen's keys global.
        assert_eq!(km.action(KeyContext::Editor, &ch('q')), None);
        assert_eq!(km.action(KeyContext::Global, &ch('s')), None);
        assert_eq!(
            km.action(KeyContext::Editor, &ctrl('s')),
            Some(Action::Save)
        );
        assert_eq!(
            km.action(KeyContext::Picker, &press(KeyCode::Esc, KeyModifiers::NONE)),
            Some(Action::Cancel)
        );
    }

    #[test]
    fn only_presses_and_repeats_match() {
        let km = defaults();
        for (kind, expected) in [
            (KeyEventKind::Press, Some(Action::Quit)),
            (KeyEventKind::Repeat, Some(Action::Quit)),
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
        assert_eq!(km.keys(KeyContext::Grid, "quit"), ["q", "Ctrl-c"]);
        assert_eq!(km.keys(KeyContext::Grid, "prev_screen"), ["Shift-Tab"]);
        assert_eq!(
            km.keys(KeyContext::Grid, "page_down"),
            ["PageDown", "Ctrl-d"]
        );
        assert_eq!(km.keys(KeyContext::Pair, "next_hunk"), ["]", "n"]);
        // `n` does not step in the pair view, so it is not shown there.
        assert_eq!(km.keys(KeyContext::Pair, "step"), Vec::<String>::new());
        assert_eq!(km.keys(KeyContext::Grid, "step"), ["n"]);
        assert_eq!(km.keys(KeyContext::Editor, "quit"), Vec::<String>::new());
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
        let first = &all[0];
        assert_eq!(
            (first.context, first.name.as_str(), first.keys.clone()),
            (KeyContext::Global, "help", vec!["?".to_string()])
        );
        let contexts: Vec<KeyContext> = all.iter().map(|b| b.context).collect();
        let mut sorted = contexts.clone();
        sorted.sort();
        assert_eq!(contexts, sorted);
        assert!(all.iter().any(|b| b.context == KeyContext::Pair
            && b.name == "prev_hunk"
            && b.keys == ["[", "N"]));
        assert!(all.iter().all(|b| !b.keys.is_empty()));
    }

    #[test]
    fn a_screen_offers_its_own_keys_first_then_the_global_ones_it_leaves() {
        let km = defaults();
        let pair = km.offered(KeyContext::Pair);
        assert_eq!(pair[0].name, "next_hunk");
        let step = pair.iter().find(|s| s.name == "step");
        assert!(step.is_none(), "`n` is the next hunk on Pair: {pair:?}");
        let grid = km.offered(KeyContext::Grid);
        assert!(grid.iter().any(|s| s.name == "step" && s.keys == ["n"]));
        assert!(
            km.offered(KeyContext::Editor)
                .iter()
                .all(|s| s.name != "quit")
        );
    }

    #[test]
    fn a_user_binding_replaces_the_default_keys_of_that_action() {
        let (_dir, path) = user_keymap("[global]\nquit = \"Q\"\n");
        let km = Keymap::load(Some(&path)).unwrap();
        assert_eq!(km.action(KeyContext::Grid, &ch('Q')), Some(Action::Quit));
        assert_eq!(km.action(KeyContext::Grid, &ch('q')), None);
        assert_eq!(km.action(KeyContext::Grid, &ctrl('c')), None);
        assert_eq!(km.keys(KeyContext::Grid, "quit"), ["Q"]);
        // Everything else keeps its default.
        assert_eq!(km.action(KeyContext::Grid, &ch('n')), Some(Action::Step));
        assert_eq!(
            km.action(KeyContext::Pair, &ch('n')),
            Some(Action::NextHunk)
        );
    }

    #[test]
    fn a_user_binding_takes_its_key_from_other_actions_and_may_unbind() {
        let (_dir, path) = user_keymap("[global]\nquit = \"x\"\nhelp = []\n[pair]\nstep = \"s\"\n");
        let km = Keymap::load(Some(&path)).unwrap();
        assert_eq!(
            km.action(KeyContext::Timeline, &ch('x')),
            Some(Action::Quit)
        );
        // The Grid's own `x` (veto, at a gate) comes before a global binding.
        assert_eq!(km.action(KeyContext::Grid, &ch('x')), Some(Action::Veto));
        assert_eq!(km.action(KeyContext::Grid, &ch('?')), None);
        assert_eq!(km.action(KeyContext::Pair, &ch('s')), Some(Action::Step));
        assert_eq!(
            km.action(KeyContext::Grid, &ch('s')),
            Some(Action::SortRows)
        );
        assert!(
            km.bindings()
                .iter()
                .all(|b| !(b.context == KeyContext::Global && b.name == "help"))
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
            msg.contains("`quitt` is not an action; actions are: help, quit, continue"),
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
        assert!(
            matches!(
                err,
                KeymapError::File(TomlFileError::Syntax { line: 2, .. })
            ),
            "{msg}"
        );
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

    /// The README lists every key the help lists, by its context and action.
    #[test]
    fn the_readme_lists_every_default_key() {
        let readme = include_str!("../../README.md");
        for b in defaults().bindings() {
            let context = format!("**{}**", b.context.name());
            let line_start = readme
                .find(&context)
                .unwrap_or_else(|| panic!("the README has no {context} keys"));
            let section = &readme[line_start..];
            let section = &section[..section[2..].find("\n- **").map_or(section.len(), |i| i + 2)];
            let keys = b
                .keys
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" ");
            let entry = format!("{keys} {}", b.name.replace('_', " "));
            let flat = section.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flat.contains(&entry),
                "README, {context}: `{entry}` missing"
            );
        }
    }
}
