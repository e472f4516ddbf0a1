//! The user's acts at a gate, the point between a generation's selection and its crossover:
//! veto a survivor, edit one, add a test of one's own, pin the final test, undo the last act
//! and redo what was undone (until a new act).
//! Each is checked against the phase, recorded in the session (`SessionDoc::acts`), and
//! applied to the generation's `parents`, the tests that go to crossover. A pin waits at the
//! gate like the others (undo takes it back); passing the gate with a pin that counts ends
//! the run with the pinned test instead of a crossover. An edited or added
//! test is a new test (its own content hash) that runs on `c_old` and on the generation's
//! mutants before crossover, like every other test of the generation; nothing already run
//! runs again.

use super::machine::{Engine, EngineError};
use super::session::*;
use crate::prompts::parse::ParsedTest;

/// What the user asks for. `Redo` takes back the last undo at this gate, as long as no new
/// act came after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActRequest {
    Veto {
        test: TestId,
    },
    Unveto {
        test: TestId,
    },
    Edit {
        test: TestId,
        source: String,
    },
    Add {
        name: String,
        source: String,
    },
    /// One call of e-Otter's critic on the test's `c_old` run; a rejection's repaired test
    /// takes its place as an edit does.
    Repair {
        test: TestId,
    },
    Pin {
        test: TestId,
    },
    Unpin {
        test: TestId,
    },
    Undo,
    Redo,
}

#[derive(Debug, thiserror::Error)]
pub enum ActError {
    #[error(
        "the session is not at a gate (it is at {0}); acts wait for the gate before a crossover"
    )]
    NotAtGate(Phase),
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

fn refused<T>(msg: String) -> Result<T, ActError> {
    Err(ActError::Refused(msg))
}

impl Engine {
    /// The generation whose crossover is next, when the session waits there.
    pub fn gate(&self) -> Option<usize> {
        match self.doc.phase {
            Phase::Crossover { generation } => Some(generation),
            _ => None,
        }
    }

    /// Applies one act at the gate; the returned act is the one recorded.
    pub async fn act(&mut self, req: ActRequest) -> Result<Act, ActError> {
        let g = self
            .gate()
            .ok_or_else(|| ActError::NotAtGate(self.doc.phase.clone()))?;
        let parents = self.doc.parents(g);
        let name_of = |doc: &SessionDoc, t: &TestId| doc.named(t);
        let kind = match req {
            ActRequest::Veto { test } => {
                if self.doc.vetoed(g).contains(&test) {
                    return refused(format!(
                        "{} is vetoed already (an unveto takes the veto back)",
                        name_of(&self.doc, &test)
                    ));
                }
                if !parents.contains(&test) {
                    return refused(format!(
                        "{test} does not go to crossover (those that do: {})",
                        parents.join(", ")
                    ));
                }
                if self.doc.pinned(g).as_ref() == Some(&test) {
                    return refused(format!(
                        "{test} is pinned as the final test: pin it again to take the pin \
                         back first"
                    ));
                }
                if parents.len() == 1 {
                    return refused(format!(
                        "{} is the last test going to crossover; pin it to end the run with \
                         it, or add a test first",
                        name_of(&self.doc, &test)
                    ));
                }
                ActKind::Veto { test }
            }
            ActRequest::Unveto { test } => {
                if !self.doc.vetoed(g).contains(&test) {
                    return refused(format!(
                        "{} is not vetoed at this gate",
                        name_of(&self.doc, &test)
                    ));
                }
                ActKind::Unveto { test }
            }
            // A parent's edit takes its place; a dropped or vetoed test's edit goes on beside
            // the parents (the user rescued it).
            ActRequest::Edit { test, source } => {
                if !self.doc.generations[g].tests.contains(&test) {
                    return refused(format!(
                        "{test} is not a test of generation {g}; edit one of {}",
                        self.doc.generations[g].tests.join(", ")
                    ));
                }
                let from = self.doc.tests[&test].clone();
                if source == from.source {
                    return refused(format!("the edit of {test} changes nothing"));
                }
                let origin = Origin::UserEdited {
                    generation: g,
                    from: test.clone(),
                };
                let new_test = self.user_test(g, &from.name, source, origin).await?;
                ActKind::Edit { test, new_test }
            }
            ActRequest::Repair { test } => self.repair_act(g, test).await?,
            ActRequest::Add { name, source } => {
                if source.trim().is_empty() {
                    return refused("the added test is empty".into());
                }
                let origin = Origin::UserWritten { generation: g };
                let new_test = self.user_test(g, &name, source, origin).await?;
                if parents.contains(&new_test) {
                    return refused(format!("{new_test} already goes to crossover"));
                }
                ActKind::Add { new_test }
            }
            ActRequest::Pin { test } => {
                if !self.doc.generations[g].tests.contains(&test) {
                    return refused(format!(
                        "{test} is not a test of generation {g}; pin one of {}",
                        self.doc.generations[g].tests.join(", ")
                    ));
                }
                ActKind::Pin { test }
            }
            ActRequest::Unpin { test } => {
                if self.doc.pinned(g).as_ref() != Some(&test) {
                    return refused(format!("{test} is not pinned at this gate"));
                }
                ActKind::Unpin { test }
            }
            ActRequest::Undo => match self.doc.last_undoable(g) {
                Some(i) => ActKind::Undo {
                    undone: i,
                    what: Some(self.doc.acts[i].kind.describe()),
                },
                None => return refused("nothing to undo at this gate".into()),
            },
            ActRequest::Redo => match self.doc.last_redoable(g) {
                Some(u) => ActKind::Redo {
                    undo: u,
                    what: match &self.doc.acts[u].kind {
                        ActKind::Undo { undone, .. } => self.doc.acts[*undone].kind.describe(),
                        other => other.describe(),
                    },
                },
                None => {
                    return refused(
                        "nothing to redo at this gate (a new act ends what undo can give back)"
                            .into(),
                    );
                }
            },
        };
        Ok(self.record_act(g, kind)?)
    }

    /// The repair act: one call of the critic on `test`'s `c_old` run at gate `g`; after a
    /// rejection the repaired test joins the generation and takes `test`'s place.
    async fn repair_act(&mut self, g: usize, test: TestId) -> Result<ActKind, ActError> {
        if !self.doc.generations[g].tests.contains(&test) {
            return refused(format!(
                "{test} is not a test of generation {g}; repair one of {}",
                self.doc.generations[g].tests.join(", ")
            ));
        }
        if self.model.is_none() {
            return refused(
                "a repair asks the model, and this session has none: start it with \
                 --llm anthropic|openai|scripted:FILE"
                    .into(),
            );
        }
        let round = match &self.doc.tests[&test].origin {
            Origin::Repaired {
                round,
                generation: Some(at),
                ..
            } if *at == g => round + 1,
            _ => 1,
        };
        self.run_on_old(std::slice::from_ref(&test)).await?;
        // A model that cannot answer (unreachable, a script without this reply, a budget)
        // fails this act only: the session stays at the gate as it was.
        let r = match self.critique(&test, round, Some(g)).await {
            Ok(r) => r,
            // Recorded replies answer only the prompts they were recorded for: said shortly.
            Err(EngineError::Llm { .. })
                if self
                    .doc
                    .config
                    .llm
                    .as_deref()
                    .is_some_and(|l| l.starts_with("scripted:")) =>
            {
                return refused(format!(
                    "no repair of {test}, nothing changed: the recorded replies have none for \
                     it (they answer only the tests they were recorded for)"
                ));
            }
            Err(e @ (EngineError::Llm { .. } | EngineError::Budget(_))) => {
                return refused(format!("no repair of {test}, nothing changed: {e}"));
            }
            Err(e) => return Err(e.into()),
        };
        // The call is the session's whatever comes of it (its cost, the Model screen).
        self.save()?;
        let Some(new_test) = r.repaired else {
            return refused(if r.accepted {
                format!(
                    "the critic accepts {} as it is ({}); nothing was replaced",
                    self.doc.named(&test),
                    r.reason
                )
            } else {
                format!(
                    "the critic rejects {} ({}) but its reply held no repaired test; \
                     nothing was replaced (the call is on the Model screen)",
                    self.doc.named(&test),
                    r.reason
                )
            });
        };
        self.join(g, &new_test).await?;
        Ok(ActKind::Repair {
            test,
            new_test,
            reason: r.reason,
        })
    }

    /// Records an act, recomputes the gate's parents from every act that counts, saves (so
    /// the snapshot shows it), then announces it.
    pub fn record_act(&mut self, g: usize, kind: ActKind) -> Result<Act, EngineError> {
        let act = Act {
            at_unix: now_unix(),
            generation: g,
            kind,
        };
        self.doc.acts.push(act.clone());
        let parents = self.doc.curated_parents(g);
        self.doc.generations[g].parents = Some(parents);
        self.save()?;
        self.emit(super::Event::Acted { act: act.clone() });
        Ok(act)
    }

    /// A test of the user's (written or edited) joins generation `g`: it runs on the
    /// generation's baselines and mutants, and gets its row.
    async fn user_test(
        &mut self,
        g: usize,
        name: &str,
        source: String,
        origin: Origin,
    ) -> Result<TestId, ActError> {
        let hash = crate::hash::sha256_hex(&source);
        let existing = self.doc.tests.values().find(|c| c.hash == hash);
        let id = match existing {
            Some(c) => c.id.clone(),
            None => {
                let t = ParsedTest {
                    name: Some(name.to_string()),
                    source,
                };
                let id = self.add_test(t, name, origin);
                self.emit_written(Some(g), std::slice::from_ref(&id), &[]);
                id
            }
        };
        self.join(g, &id).await?;
        Ok(id)
    }

    /// Test `id` joins generation `g` (if it is not in it): it runs on the generation's
    /// baselines and mutants, and gets its row and score.
    async fn join(&mut self, g: usize, id: &TestId) -> Result<(), ActError> {
        let id = id.clone();
        let joins = !self.doc.generations[g].tests.contains(&id);
        if joins {
            self.doc.generations[g].tests.push(id.clone());
        }
        let peers = self.doc.generations[g].tests.clone();
        let mutants = self.doc.generations[g].mutants.clone();
        let (per_test, had) = self.workload(std::slice::from_ref(&id), &mutants, u64::MAX);
        self.execute(g, std::slice::from_ref(&id), &peers, per_test)
            .await?;
        // The generation's figures count the new row, as the matrix does.
        if joins {
            let gm = &mut self.doc.generations[g];
            gm.executions += per_test;
            gm.cached += had;
        }
        let gen_ = self.doc.generations[g].clone();
        if let Some(score) = self.score_generation(&gen_).remove(&id) {
            self.doc.generations[g].scores.insert(id.clone(), score);
        }
        Ok(())
    }
}

impl SessionDoc {
    /// `t3 (test_x.py)`, or the bare id of a test the session does not have.
    pub fn named(&self, t: &TestId) -> String {
        self.tests
            .get(t)
            .map_or_else(|| t.clone(), |c| format!("{t} ({})", c.name))
    }

    /// The tests going to generation `g`'s crossover: the selected ones, as the acts that
    /// count have changed them.
    pub fn parents(&self, g: usize) -> Vec<TestId> {
        self.generations
            .get(g)
            .map(|gen_| {
                gen_.parents
                    .clone()
                    .unwrap_or_else(|| gen_.selected.clone())
            })
            .unwrap_or_default()
    }

    /// The indices (in `acts`) of the acts an undo took back, and no redo gave back.
    fn undone_acts(&self) -> Vec<usize> {
        let redone = self.redone_undos();
        self.acts
            .iter()
            .enumerate()
            .filter_map(|(i, a)| match a.kind {
                ActKind::Undo { undone, .. } if !redone.contains(&i) => Some(undone),
                _ => None,
            })
            .collect()
    }

    /// The indices of the undos a redo took back.
    fn redone_undos(&self) -> Vec<usize> {
        self.acts
            .iter()
            .filter_map(|a| match a.kind {
                ActKind::Redo { undo, .. } => Some(undo),
                _ => None,
            })
            .collect()
    }

    /// The undo at gate `g` that a redo would take back: the last one still in force, as
    /// long as no new act (veto, edit, add, pin) came after it, as in an editor.
    fn last_redoable(&self, g: usize) -> Option<usize> {
        let redone = self.redone_undos();
        for (i, a) in self.acts.iter().enumerate().rev() {
            if a.generation != g {
                continue;
            }
            match a.kind {
                ActKind::Undo { .. } if !redone.contains(&i) => return Some(i),
                ActKind::Undo { .. } | ActKind::Redo { .. } => {}
                _ => return None,
            }
        }
        None
    }

    /// The acts at gate `g` that still count (not undone), in the order done.
    pub fn counting_acts(&self, g: usize) -> Vec<&Act> {
        let undone = self.undone_acts();
        self.acts
            .iter()
            .enumerate()
            .filter(|(i, a)| a.generation == g && !undone.contains(i))
            .map(|(_, a)| a)
            .collect()
    }

    /// The test pinned at gate `g` by the last pin that still counts: passing the gate ends
    /// the run with it.
    pub fn pinned(&self, g: usize) -> Option<TestId> {
        self.gate(g).pinned
    }

    /// The tests vetoed at gate `g` that do not go on (see `Gate::vetoed`).
    pub fn vetoed(&self, g: usize) -> Vec<TestId> {
        self.gate(g).vetoed
    }

    /// Whether an undo at gate `g` has an act to take back.
    pub fn can_undo(&self, g: usize) -> bool {
        self.last_undoable(g).is_some()
    }

    /// Whether a redo at gate `g` has an undo to take back.
    pub fn can_redo(&self, g: usize) -> bool {
        self.last_redoable(g).is_some()
    }

    /// The last act at gate `g` that still counts and can be undone.
    fn last_undoable(&self, g: usize) -> Option<usize> {
        let undone = self.undone_acts();
        self.acts.iter().enumerate().rev().find_map(|(i, a)| {
            let undoable = matches!(
                a.kind,
                ActKind::Veto { .. }
                    | ActKind::Unveto { .. }
                    | ActKind::Edit { .. }
                    | ActKind::Repair { .. }
                    | ActKind::Add { .. }
                    | ActKind::Pin { .. }
                    | ActKind::Unpin { .. }
            );
            (a.generation == g && undoable && !undone.contains(&i)).then_some(i)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records an act as `Engine::record_act` does (the gate's parents follow the acts).
    fn act(doc: &mut SessionDoc, kind: ActKind) {
        doc.acts.push(Act {
            at_unix: 0,
            generation: 0,
            kind,
        });
        doc.generations[0].parents = Some(doc.curated_parents(0));
    }

    fn veto(doc: &mut SessionDoc, test: &TestId) {
        act(doc, ActKind::Veto { test: test.clone() });
    }

    fn undo(doc: &mut SessionDoc) {
        let undone = doc.last_undoable(0).expect("something to undo");
        act(doc, ActKind::Undo { undone, what: None });
    }

    fn redo(doc: &mut SessionDoc) {
        let undo = doc.last_redoable(0).expect("something to redo");
        act(
            doc,
            ActKind::Redo {
                undo,
                what: String::new(),
            },
        );
    }

    /// Taking back one veto leaves the others, puts the test back where selection ranked
    /// it, and is an act an undo takes back like any other.
    #[test]
    fn an_unveto_takes_back_one_veto_whatever_came_after_it() {
        let mut doc = crate::testkit::finished_session();
        doc.acts.clear();
        let sel = doc.generations[0].selected.clone();
        assert!(sel.len() >= 2, "{sel:?}");
        let (a, b) = (sel[0].clone(), sel[1].clone());
        veto(&mut doc, &a);
        veto(&mut doc, &b);
        act(&mut doc, ActKind::Unveto { test: a.clone() });
        assert_eq!(doc.vetoed(0), vec![b.clone()]);
        let without_b: Vec<_> = sel.iter().filter(|t| **t != b).cloned().collect();
        assert_eq!(doc.parents(0), without_b, "a is back in its place, first");
        // Vetoed again: listed once.
        veto(&mut doc, &a);
        act(&mut doc, ActKind::Unveto { test: a.clone() });
        veto(&mut doc, &a);
        assert_eq!(doc.vetoed(0), vec![a.clone(), b.clone()]);
        // Undo walks back: the last veto of a, then its unveto (a vetoed by the one before).
        undo(&mut doc);
        assert_eq!(doc.vetoed(0), vec![b.clone()]);
        undo(&mut doc);
        assert_eq!(doc.vetoed(0), vec![a.clone(), b.clone()]);
        redo(&mut doc);
        assert_eq!(doc.vetoed(0), vec![b.clone()]);
    }

    /// Undo and redo walk the acts back and forth as an editor does: redo gives back the
    /// last undone act first, and a new act ends what redo can give back.
    #[test]
    fn redo_gives_back_in_reverse_order_until_a_new_act() {
        let mut doc = crate::testkit::finished_session();
        doc.acts.clear();
        let sel = doc.generations[0].selected.clone();
        assert!(sel.len() >= 2, "{sel:?}");
        let (a, b) = (sel[0].clone(), sel[1].clone());
        assert_eq!(doc.last_redoable(0), None, "nothing undone yet");
        veto(&mut doc, &a);
        veto(&mut doc, &b);
        undo(&mut doc);
        undo(&mut doc);
        assert!(doc.vetoed(0).is_empty());
        redo(&mut doc);
        assert_eq!(
            doc.vetoed(0),
            vec![a.clone()],
            "the last undo (of a's veto) first"
        );
        redo(&mut doc);
        assert_eq!(doc.vetoed(0), vec![a.clone(), b.clone()]);
        assert_eq!(doc.last_redoable(0), None, "everything given back");
        // Undo after redo takes back the act redone last.
        undo(&mut doc);
        assert_eq!(doc.vetoed(0), vec![a.clone()]);
        // A new act after an undo: the undone act cannot come back.
        act(&mut doc, ActKind::Pin { test: a.clone() });
        assert_eq!(doc.last_redoable(0), None);
        assert_eq!(doc.vetoed(0), vec![a.clone()]);
        assert_eq!(doc.pinned(0), Some(a));
    }
}
