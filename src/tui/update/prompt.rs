//! The one-line prompt: what typing does as it goes, and Enter for search, go-to and write.

use super::navigate::*;
use crate::tui::action::Effect;
use crate::tui::state::{Asking, Screen, State};

/// Text typed into the prompt: a search follows it as it is typed; `g` as the first key of a
/// go-to is `gg`, the top.
pub(super) fn typed(s: &mut State, text: &str, _fx: &mut Vec<Effect>) {
    let Some(p) = &mut s.prompt else {
        return;
    };
    if p.purpose == Asking::Goto && p.text.is_empty() && text == "g" {
        s.prompt = None;
        // As the `First` key would do (`apply` reads it this way too).
        if s.help {
            s.help_scroll = 0;
        } else {
            ends(s, false);
        }
        return;
    }
    p.text.push_str(text);
    if p.purpose == Asking::Search {
        let q = p.text.clone();
        s.set_query(q);
    }
}

/// Enter in a prompt: search, go to, or write, as it was opened for.
pub(super) fn submitted(s: &mut State, fx: &mut Vec<Effect>) {
    let Some(p) = s.prompt.take() else {
        return;
    };
    let text = p.text.trim().to_owned();
    match p.purpose {
        Asking::Search => {
            if text.is_empty() {
                s.search = None;
                return;
            }
            s.set_query(text);
            match s.screen {
                Screen::Grid | Screen::Curate => jump_to_hit(s, true),
                // A text pane's hits come from its frames: those drawn while the query was
                // typed hold them; a replay without frames jumps at the next one.
                screen => match &s.measured[screen.index()] {
                    Some(m) => {
                        let top = s.scroll_of(screen).top;
                        match m.hits.iter().find(|&&h| h >= top).or(m.hits.first()) {
                            Some(&h) => s.set_top(screen, h),
                            None => s.say("no match on this screen"),
                        }
                    }
                    None => {
                        if let Some(q) = &mut s.search {
                            q.jump_pending = true;
                        }
                    }
                },
            }
        }
        Asking::Goto => goto(s, &text),
        Asking::WriteTo(t) => {
            if text.is_empty() {
                return;
            }
            let source = s.doc.tests[&t].source.clone();
            s.pending_write = Some(source.clone());
            fx.push(Effect::WriteFile {
                path: std::path::PathBuf::from(text),
                text: source,
                overwrite: false,
            });
        }
    }
}
