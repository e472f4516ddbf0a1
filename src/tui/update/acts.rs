//! The user's acts at a gate (veto, unveto, edit, add, pin, undo, redo) and the editor's
//! round trip: opened, saved, syntax-checked, sent to the workbench.

use crate::engine::{ActRequest, SessionDoc, Target};
use crate::tui::action::{Action, Effect};
use crate::tui::state::{Confirm, Confirmed, Editing, EditorState, Screen, State};
use crate::workbench::Command;

/// An act at the gate: on the Grid, and on the Pair and Why screens that show the Grid's
/// selected pair, on the selected row's test (when the Grid shows the gate's generation);
/// elsewhere on the selected test of the Curate list.
pub(super) fn act(s: &mut State, action: Action, fx: &mut Vec<Effect>) {
    if !s.allowed(&action) {
        return;
    }
    let on_a_test = matches!(
        action,
        Action::Veto | Action::Pin | Action::Edit | Action::Repair
    );
    let selected = if matches!(s.screen, Screen::Grid | Screen::Pair | Screen::Why) {
        let Some(grid) = s.grid() else { return };
        match s.at_gate() {
            Some(g) if on_a_test && grid.generation != g => {
                s.say(format!(
                    "the Grid shows generation {}: acts are on generation {g}'s tests, at its \
                     gate (] shows it)",
                    grid.generation
                ));
                return;
            }
            _ => grid.tests.get(s.row).cloned(),
        }
    } else {
        s.curate_list().get(s.curate_row).cloned()
    };
    // The selection stays on this test once the act is done, wherever the act moves it.
    s.curate_follow = selected.clone().map(|t| (t, s.doc.acts.len()));
    match (&action, selected) {
        (Action::Undo, _) => fx.push(Effect::Send(Command::Act(ActRequest::Undo))),
        (Action::Redo, _) => fx.push(Effect::Send(Command::Act(ActRequest::Redo))),
        (Action::Add, _) => {
            let name = format!("test_yours_{}.py", s.doc.tests.len() + 1);
            open_editor(s, Editing::Add(name), new_test_template(&s.doc), fx);
        }
        (Action::AddFile, _) => open_editor(s, Editing::Path, String::new(), fx),
        (_, None) => s.say("no test selected"),
        // The veto key on a vetoed test takes its veto back, whatever was done since.
        (Action::Veto, Some(test)) => {
            let vetoed = s.at_gate().is_some_and(|g| s.doc.vetoed(g).contains(&test));
            let act = if vetoed {
                ActRequest::Unveto { test }
            } else {
                ActRequest::Veto { test }
            };
            fx.push(Effect::Send(Command::Act(act)))
        }
        (Action::Repair, Some(test)) => {
            s.say(format!(
                "asking the model to judge {test}'s c_old run and repair it (one call)"
            ));
            fx.push(Effect::Send(Command::Act(ActRequest::Repair { test })))
        }
        // The pin key on the pinned test takes its pin back.
        (Action::Pin, Some(test))
            if s.at_gate()
                .is_some_and(|g| s.doc.pinned(g).as_ref() == Some(&test)) =>
        {
            fx.push(Effect::Send(Command::Act(ActRequest::Unpin { test })))
        }
        (Action::Pin, Some(test)) => {
            // A test that passes on c_old cannot reproduce the bug: the prompt says so before
            // the run ends on it.
            let passes = s
                .doc
                .execution(&test, &Target::Old)
                .is_some_and(|e| e.outcome == crate::exec::Outcome::Passed);
            let warning = if passes {
                " it passes on c_old, so it cannot reproduce the bug;"
            } else {
                ""
            };
            // Another pinned test gives way: the question says so.
            let instead = s
                .at_gate()
                .and_then(|g| s.doc.pinned(g))
                .map_or(String::new(), |p| format!(" (in place of {p})"));
            s.confirm = Some(Confirm {
                question: format!(
                    "pin {test} as the final test{instead} and end the run?{warning} y/n"
                ),
                then: Confirmed::Pin(test),
            })
        }
        (Action::Edit, Some(test)) => {
            let text = s.doc.tests[&test].source.clone();
            open_editor(s, Editing::Edit(test), text, fx);
        }
        _ => {}
    }
    // An act on the Grid stays there (its row's mark shows the act); elsewhere the Curate
    // list shows what it did.
    if s.screen != Screen::Grid {
        s.go(Screen::Curate);
    }
}

pub(super) fn open_editor(s: &mut State, purpose: Editing, text: String, fx: &mut Vec<Effect>) {
    s.editor = Some(EditorState::new(purpose, &text));
    fx.push(Effect::OpenEditor { text });
}

/// The editor's text was saved: a test is compiled by the run's interpreter first (a test
/// that does not compile would only fail to collect, everywhere); a path is read.
pub(super) fn saved(s: &mut State, source: String, fx: &mut Vec<Effect>) {
    let Some(editor) = s.editor.as_mut() else {
        return;
    };
    let name = match &editor.purpose {
        Editing::Path => {
            s.editor = None;
            fx.push(Effect::CloseEditor);
            fx.push(Effect::ReadFile {
                path: std::path::PathBuf::from(source.trim()),
            });
            return;
        }
        Editing::Edit(t) => s.doc.tests.get(t).map_or(t.clone(), |c| c.name.clone()),
        Editing::Add(name) => name.clone(),
    };
    if editor.checking {
        return;
    }
    // The new-test template's placeholder fails on any code, fixed or not: a test that
    // keeps it can never pass, so it goes nowhere until the user replaces it.
    if let Some(at) = source.lines().position(|l| l.trim() == PLACEHOLDER) {
        editor.error = Some((at + 1, "the template's placeholder".into()));
        fx.push(Effect::EditorCursor { line: at + 1 });
        s.say(format!(
            "not accepted: line {} is still the template's placeholder, which fails on any \
             code; write the reproduction there, or Esc",
            at + 1
        ));
        return;
    }
    editor.checking = true;
    editor.error = None;
    // A Docker run's interpreter is in its image: the check uses python3 here.
    let python = s
        .doc
        .config
        .docker
        .is_none()
        .then(|| std::path::PathBuf::from(&s.doc.config.python));
    fx.push(Effect::CheckSyntax {
        python,
        name,
        source,
    });
}

/// The compile check answered: a test that compiles becomes the act it was written for; one
/// that does not keeps the editor open with the error.
pub(super) fn checked(
    s: &mut State,
    source: String,
    result: Result<Vec<String>, String>,
    fx: &mut Vec<Effect>,
) {
    if !s.editor.as_ref().is_some_and(|e| e.checking) {
        return;
    }
    let complaints = match result {
        Ok(c) => c,
        Err(why) => {
            // Nothing to compile with: the test goes in, and the user is told.
            s.say(format!(
                "could not compile the test to check it ({why}); it goes in as written"
            ));
            vec![]
        }
    };
    let Some(editor) = s.editor.as_mut() else {
        return;
    };
    editor.checking = false;
    if let Some(first) = complaints.first() {
        // `file:line:col: message`
        let mut parts = first.splitn(4, ':');
        let (_, line, _, message) = (parts.next(), parts.next(), parts.next(), parts.next());
        let line = line.and_then(|l| l.trim().parse().ok()).unwrap_or(0);
        let message = message.map_or(first.clone(), |m| m.trim().to_owned());
        editor.error = Some((line, message.clone()));
        if line > 0 {
            fx.push(Effect::EditorCursor { line });
        }
        s.say(format!(
            "not accepted: it does not compile (line {line}: {message}); fix it, or Esc"
        ));
        return;
    }
    let purpose = editor.purpose.clone();
    s.editor = None;
    fx.push(Effect::CloseEditor);
    let source = if source.ends_with('\n') {
        source
    } else {
        source + "\n"
    };
    match purpose {
        Editing::Edit(test) => fx.push(Effect::Send(Command::Act(ActRequest::Edit {
            test,
            source,
        }))),
        Editing::Add(name) => fx.push(Effect::Send(Command::Act(ActRequest::Add { name, source }))),
        Editing::Path => {}
    }
}

/// The line a new test's template asks the user to replace.
pub(super) const PLACEHOLDER: &str = "assert False, \"write the reproduction here\"";

pub(super) fn new_test_template(doc: &SessionDoc) -> String {
    let imports = doc
        .base_brt
        .as_ref()
        .map(|b| b.imports.join("\n"))
        .filter(|i| !i.is_empty())
        .unwrap_or_default();
    format!("{imports}\n\n\ndef test_reproduces_the_issue():\n    {PLACEHOLDER}\n")
        .trim_start()
        .to_string()
}
