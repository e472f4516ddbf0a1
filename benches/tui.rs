//! TUI benchmark: drawing one frame of a 64 x 640 grid on a 200 x 60 terminal, against drawing
//! the 8 x 5 grid of a bundled-example generation in the same run; and the memory a session of
//! that size holds. The session is made by the real engine with the scripted executor (no
//! Python), so its shape is a real one.
//!
//! `cargo bench --bench tui [-- FRAMES]`.

use evootter::engine::{Engine, Inputs, RunConfig, setup};
use evootter::exec::scripted::{self, ScriptedExecutor};
use evootter::exec::{ExecRequest, Outcome};
use evootter::tui::action::Action;
use evootter::tui::highlight::Highlighter;
use evootter::tui::keymap::Keymap;
use evootter::tui::state::State;
use evootter::tui::theme::Theme;
use evootter::tui::update::update;
use evootter::tui::views::{Ctx, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn answer(req: &ExecRequest) -> evootter::exec::ExecResult {
    let h = evootter::hash::sha256_hex(format!("{}{:?}", req.test.content, req.overrides));
    let outcome = if h.starts_with(['0', '1', '2', '3']) {
        Outcome::Passed
    } else {
        Outcome::Failed
    };
    let log = if h.as_bytes()[1] % 3 == 0 || req.overrides.is_empty() {
        "same\n".to_string()
    } else {
        format!("differs {}\n", &h[..8])
    };
    scripted::result(outcome, &log)
}

/// A repository whose focal functions have enough sites for `mutants` unique mutants.
fn big_session(tests: usize, mutants: usize) -> evootter::engine::SessionDoc {
    let dir = tempfile::tempdir().unwrap().keep();
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("pkg")).unwrap();
    let mut src = String::new();
    let mut focal = vec![];
    for f in 0..80 {
        src.push_str(&format!(
            "def f{f}(a, b, c):\n    x = a + b * {f}\n    if x > c and a < b:\n        return x - 1\n    y = not (a == c) or b >= {f}\n    return x % 7 + y\n\n\n"
        ));
        focal.push(format!("pkg/m.py::f{f}").parse().unwrap());
    }
    std::fs::write(repo.join("pkg/m.py"), src).unwrap();
    let cands = (0..tests)
        .map(|i| {
            (
                dir.join(format!("test_{i:03}.py")),
                format!("def test_{i}():\n    assert {i}\n"),
            )
        })
        .collect();
    let config = RunConfig {
        tests,
        mutants,
        jobs: 2,
        check_flaky: false,
        ..evootter::testkit::config(evootter::engine::SelectionStrategy::Mutation)
    };
    let inputs = Inputs {
        repo,
        issue_path: None,
        issue_text: "bench".into(),
        focal,
        initial_tests_dir: None,
        golden_patch: None,
        instance: Some("bench".into()),
        repo_fingerprint: String::new(),
    };
    let doc = setup::new_session(inputs, config, cands).unwrap();
    let mut engine = Engine::new(
        doc,
        dir.join("session.json"),
        Arc::new(ScriptedExecutor::new(answer)),
        None,
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Mutate; then generation 0 gets the whole pool (the halving schedule would sample
    // fewer), and its executions run: a full tests x mutants grid.
    rt.block_on(async {
        engine.step().await.unwrap();
        let all: Vec<String> = engine
            .doc
            .pool
            .iter()
            .flat_map(|p| p.mutants.iter().map(|m| m.id.clone()))
            .collect();
        let g = &mut engine.doc.generations[0];
        g.executions = g.tests.len() * (all.len() + 1);
        g.mutants = all;
        engine.step().await.unwrap();
    });
    engine.doc
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn median_frame(state: &State, frames: usize) -> Duration {
    let theme = Theme::load(Some("dark"), None, false).unwrap();
    let keymap = Keymap::load(None).unwrap();
    let hl = Highlighter::new(true, true);
    let mut term = Terminal::new(TestBackend::new(state.width, state.height)).unwrap();
    let mut times = vec![];
    for _ in 0..frames {
        let started = Instant::now();
        term.draw(|f| {
            draw(
                f,
                &Ctx {
                    state,
                    theme: &theme,
                    hl: &hl,
                    keymap: &keymap,
                    editor: None,
                    measure: &std::cell::Cell::new(None),
                },
            )
        })
        .unwrap();
        times.push(started.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// In a fresh process (this bench again): the memory a session file takes once loaded, as
/// `evootter open` loads it.
fn measure_load(path: &str) {
    let before = rss_kib();
    let doc = evootter::engine::SessionDoc::load(std::path::Path::new(path)).unwrap();
    let after = rss_kib();
    println!("{} {}", after.saturating_sub(before), doc.executions.len());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--measure-load") {
        measure_load(&args[i + 1]);
        return;
    }
    let frames: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(200);
    let started = Instant::now();
    let big = big_session(64, 640);
    let made = started.elapsed();
    let g = &big.generations[0];
    println!(
        "session: {} tests x {} mutants in generation 0, {} executions, {} logs; made in {:.1} s",
        g.tests.len(),
        g.mutants.len(),
        big.executions.len(),
        big.logs.len(),
        made.as_secs_f64()
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    let json = serde_json::to_vec(&big).unwrap();
    std::fs::write(file.path(), &json).unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--measure-load")
        .arg(file.path())
        .output()
        .unwrap();
    let kib: u64 = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    println!(
        "memory: {:.1} MiB resident for the session with all its logs loaded ({:.1} MiB as JSON)",
        kib as f64 / 1024.0,
        json.len() as f64 / (1024.0 * 1024.0)
    );
    let mut s = State::new(Arc::new(big), true, 0);
    update(
        &mut s,
        Action::Resize {
            width: 200,
            height: 60,
        },
    );
    update(&mut s, Action::Grid);
    // Somewhere in the middle, scrolled.
    for _ in 0..300 {
        update(&mut s, Action::Right);
    }
    for _ in 0..30 {
        update(&mut s, Action::Down);
    }
    let big_frame = median_frame(&s, frames);
    let small = State::new(Arc::new(big_session(8, 20)), true, 0);
    let mut small = small;
    update(
        &mut small,
        Action::Resize {
            width: 200,
            height: 60,
        },
    );
    let small_frame = median_frame(&small, frames);
    println!(
        "grid frame, 200x60, median of {frames}: 64 x 640 grid {:.2} ms, 8 x 5 grid {:.2} ms ({:.2}x)",
        big_frame.as_secs_f64() * 1000.0,
        small_frame.as_secs_f64() * 1000.0,
        big_frame.as_secs_f64() / small_frame.as_secs_f64()
    );
}
