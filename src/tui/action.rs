//! The TUI's one vocabulary. Everything that happens becomes an [`Action`] for the reducer: a
//! key (through the keymap, which binds names to these very actions), a terminal event, a
//! workbench event or snapshot, and the result of an effect the app carried out. The reducer
//! answers with [`Effect`]s, which only the app carries out. Both are serde types: the
//! snake_case name of a key's action is its name in a keymap file and in a recorded replay.

pub use super::state::Rerun;
use crate::engine::{Event, MutantId, SessionDoc, TestId};
use crate::workbench::Command;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// What a person, the terminal, the workbench or a finished effect asks of the TUI.
///
/// The unit variants are what keys mean, and `keymaps/default.toml` binds each by its name;
/// adding a key is a variant here, an arm in `update`, and a line there. The variants with
/// data come from elsewhere and no key can be bound to them (see [`Action::from_key_name`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum Action {
    /// Show or hide every key and what the grid's letters mean.
    Help,
    /// Leave; a live session is saved and `evootter open` continues it.
    Quit,
    /// One engine step.
    Step,
    /// On until the next gate (the pause before a crossover).
    RunToGate,
    /// Past the gate: crossover with the tests that go to it.
    Continue,
    NextScreen,
    PrevScreen,
    #[serde(alias = "screen1")]
    Timeline,
    #[serde(alias = "screen2")]
    Grid,
    #[serde(alias = "screen3")]
    Pair,
    #[serde(alias = "screen4")]
    Why,
    #[serde(alias = "screen5")]
    Curate,
    /// The Model screen: the model's calls. `transcript`, its name in keymap files and
    /// replays written before, still reads.
    #[serde(alias = "screen6", alias = "transcript")]
    Model,
    Left,
    Right,
    Up,
    Down,
    First,
    Last,
    PageUp,
    PageDown,
    /// Enter: the selected cell's pair (Grid), the grid of a generation (Timeline), a traced
    /// run of the pair (Why).
    Open,
    /// Esc: close the help, or the screen before.
    Back,
    /// Acts at a gate, on the selected test of the Curate list.
    Veto,
    Edit,
    Add,
    /// Add a test from a file: its path is asked first.
    AddFile,
    Pin,
    /// Ask the model to repair the selected test from its `c_old` log (e-Otter's critic, one
    /// call): a rejection's repair takes its place as an edit does.
    Repair,
    Undo,
    /// Gives back what the last undo took (until a new act).
    Redo,
    /// Why the selected cell is killed or not (the Why screen).
    #[serde(alias = "why_not_killed")]
    Explain,
    SortRows,
    FilterColumns,
    /// The Batch screen: sort the other way, and show only some rows (not F2P, errors,
    /// running, the selected row's repository).
    ReverseSort,
    FilterRows,
    /// Comparing two sessions side by side: open A's, or B's, in the workbench's screens.
    OpenA,
    OpenB,
    /// The Batch screen: the paper's figures of the rows shown, in place of the table.
    Figures,
    NextHunk,
    PrevHunk,
    /// Long lines that do not wrap (the Pair screen): scroll sideways.
    ScrollLeft,
    ScrollRight,
    ToggleRaw,
    ToggleSideBySide,
    /// Search the screen (`/`): test ids and names, mutant ids, kinds and file:line, text.
    Search,
    NextHit,
    PrevHit,
    /// Jump to a test or mutant by its id, from anywhere (`g`).
    Goto,
    /// Write the selected test (or the final one) to a file you name (`y`), or copy it to
    /// the terminal's clipboard (`Y`, OSC 52).
    WriteTest,
    CopyTest,
    /// Another generation on the Grid and the Timeline.
    PrevGeneration,
    NextGeneration,
    /// A prompt's own keys: delete the last character, take the text.
    Erase,
    Submit,
    /// The editor's and the picker's own keys (and Esc in a prompt or a search).
    Save,
    Cancel,
    /// The answers to a question (`pin t10 ...? y/n`).
    Yes,
    No,

    // ---- the terminal ----
    /// Text typed into a prompt.
    Type {
        text: String,
    },
    Resize {
        width: u16,
        height: u16,
    },
    /// The mouse wheel: lines down (negative: up).
    Scroll {
        lines: i64,
    },
    /// What the frame just drawn measured of a screen's pane (the app reports it; scrolling
    /// is clamped to it).
    Measured {
        screen: super::state::Screen,
        measure: super::state::Measure,
    },
    /// A mouse click at a terminal cell.
    Click {
        column: u16,
        row: u16,
    },

    // ---- the workbench ----
    Event {
        event: Box<Event>,
    },
    /// A new copy of the session document.
    Snapshot {
        doc: Arc<SessionDoc>,
    },
    /// The workbench's task ended: nothing more can run.
    WorkbenchEnded {},

    // ---- effects, finished ----
    /// The editor's text, saved.
    EditorSaved {
        source: String,
    },
    /// The editor was closed with its text as it was then.
    EditorCancelled {
        source: String,
    },
    /// The compile check of a saved test: the interpreter's complaints, `file:line:col:
    /// message` each (none: it compiles), or why it could not be checked.
    SyntaxChecked {
        source: String,
        result: Result<Vec<String>, String>,
    },
    /// A file written (`Effect::WriteFile`): `Err` with `exists` when it was there and not
    /// to be overwritten.
    FileWritten {
        path: PathBuf,
        result: Result<usize, String>,
        exists: bool,
    },
    /// A file the reducer asked for (`Effect::ReadFile`).
    FileRead {
        path: PathBuf,
        result: Result<String, String>,
    },
    /// The `c_old` sources of the focal files (`Effect::ReadSources`): what could be read.
    SourcesRead {
        sources: BTreeMap<String, String>,
    },
    /// A traced run of a pair (`Effect::RunPair`).
    PairRan {
        test: TestId,
        mutant: MutantId,
        result: Result<Rerun, String>,
    },
}

impl Action {
    /// The action a keymap name binds (its serde name), if a key can be bound to it: only the
    /// unit variants, which mean something without data.
    pub fn from_key_name(name: &str) -> Option<Action> {
        let a: Action = serde_json::from_value(serde_json::json!({ "action": name })).ok()?;
        a.is_key_intent().then_some(a)
    }

    /// Whether a key can mean this (a unit variant). The variants with data, and the two
    /// finished effects without, come from the terminal, the workbench or the app.
    pub fn is_key_intent(&self) -> bool {
        !matches!(
            self,
            Action::Resize { .. }
                | Action::Type { .. }
                | Action::FileWritten { .. }
                | Action::Measured { .. }
                | Action::Scroll { .. }
                | Action::Click { .. }
                | Action::Event { .. }
                | Action::Snapshot { .. }
                | Action::WorkbenchEnded {}
                | Action::EditorSaved { .. }
                | Action::EditorCancelled { .. }
                | Action::SyntaxChecked { .. }
                | Action::FileRead { .. }
                | Action::SourcesRead { .. }
                | Action::PairRan { .. }
        )
    }

    /// Whether the footer offers it: everything but moving around, which the help lists.
    pub fn in_footer(&self) -> bool {
        !matches!(
            self,
            Action::Left
                | Action::Right
                | Action::Up
                | Action::Down
                | Action::First
                | Action::Last
                | Action::PageUp
                | Action::PageDown
                | Action::ScrollLeft
                | Action::ScrollRight
                | Action::NextScreen
                | Action::PrevScreen
                | Action::Timeline
                | Action::Grid
                | Action::Pair
                | Action::Why
                | Action::Curate
                | Action::Model
                | Action::Back
                | Action::Save
                | Action::Cancel
                | Action::Yes
                | Action::No
        )
    }
}

/// What the app must do after an update; its results come back as actions.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Send(Command),
    /// Open the editor on `text` (`State::editor` says what it is for).
    OpenEditor {
        text: String,
    },
    CloseEditor,
    /// Put the editor's cursor at the start of `line` (1-based): the line a refused save
    /// complains about.
    EditorCursor {
        line: usize,
    },
    /// Compile `source` with `python` (`None`: python3 from PATH); answered by
    /// `Action::SyntaxChecked`.
    CheckSyntax {
        python: Option<PathBuf>,
        name: String,
        source: String,
    },
    /// Write `text` to `path` (not over an existing file unless `overwrite`); answered by
    /// `Action::FileWritten`.
    WriteFile {
        path: PathBuf,
        text: String,
        overwrite: bool,
    },
    /// Put `text` on the terminal's clipboard (OSC 52).
    Clipboard {
        text: String,
    },
    /// Read a file; answered by `Action::FileRead`.
    ReadFile {
        path: PathBuf,
    },
    /// Read `files` of the repository at `c_old`; answered by `Action::SourcesRead`.
    ReadSources {
        repo: PathBuf,
        files: Vec<String>,
    },
    /// Run a (test, mutant) pair again now, tracing `file` (the mutated one); answered by
    /// `Action::PairRan`.
    RunPair {
        test: TestId,
        mutant: MutantId,
        file: String,
    },
    Quit,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_are_the_serde_names_and_only_unit_variants_bind() {
        assert_eq!(
            Action::from_key_name("run_to_gate"),
            Some(Action::RunToGate)
        );
        assert_eq!(Action::from_key_name("screen6"), Some(Action::Model));
        assert_eq!(Action::from_key_name("workbench_ended"), None);
        assert_eq!(Action::from_key_name("resize"), None);
        assert_eq!(Action::from_key_name("nonsense"), None);
        let json = serde_json::to_string(&Action::Explain).unwrap();
        assert_eq!(json, r#"{"action":"explain"}"#);
        assert_eq!(
            Action::from_key_name("why_not_killed"),
            Some(Action::Explain)
        );
    }
}
