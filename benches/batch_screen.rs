//! The Batch screen on a batch of 500 instances: reading the directory (the first time, then
//! once a second with nothing changed but the four running sessions), drawing a frame at
//! 120x36, and the memory the rows take, each against the same measure on a batch of 5 made
//! the same way in the same run. Memory: the process's resident set after each (the 5 first).
//!
//! The instances are copies of one real run (`run --instance examples/pagekit_orphans --start
//! candidates`): 400 finished (its report and score), 4 running (its session, the directory's
//! lock held, rewritten before each refresh as a running instance's is), 16 interrupted (its
//! session, no lock), and 80 queued (named in the manifest only).
//!
//! `cargo bench --bench batch_screen`.

use evootter::bench::batch_dir::{BatchDir, Manifest, ManifestRow, write_manifest};
use evootter::bench::summary::{InstanceRecord, Status};
use evootter::outdir::{Intent, OutDir};
use evootter::tui::batch::{BatchView, draw};
use evootter::tui::keymap::Keymap;
use evootter::tui::theme::Theme;
use std::path::Path;
use std::time::{Duration, Instant};

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// A batch of `n` instances in `dir` made from the run in `run` (scaled: 80% done, 1%
/// running, 3% interrupted, 16% queued); the running ones' locks, held while they live.
fn batch(dir: &Path, run: &Path, n: usize) -> Vec<OutDir> {
    let report = std::fs::read(run.join("report.json")).unwrap();
    let session = std::fs::read(run.join("session.json")).unwrap();
    let (done, running, interrupted) = (n * 80 / 100, (n / 100).max(1), (n * 3 / 100).max(1));
    let mut locks = vec![];
    let mut manifest = Manifest::default();
    for i in 0..n {
        let id = format!("owner__repo{}-{i}", i % 37);
        manifest.instances.push(ManifestRow {
            id: id.clone(),
            repo: format!("owner/repo{}", i % 37),
        });
        let d = dir.join(&id);
        if i < done {
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("report.json"), &report).unwrap();
            let r = InstanceRecord {
                instance_id: id,
                status: Status::Done,
                score: None,
                seconds: 60.0,
                notes: vec![],
            };
            std::fs::write(d.join("instance.json"), serde_json::to_vec(&r).unwrap()).unwrap();
        } else if i < done + running + interrupted {
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("session.json"), &session).unwrap();
            if i < done + running {
                locks.push(OutDir::claim(&d, Intent::Resume).unwrap());
            }
        }
    }
    write_manifest(dir, &manifest);
    locks
}

/// First read, then the median refresh with the running sessions rewritten before each.
fn refresh_times(dir: &Path, running: &[OutDir]) -> (Duration, Duration, BatchDir) {
    let mut b = BatchDir::open(dir);
    let t = Instant::now();
    let rows = b.refresh();
    let first = t.elapsed();
    assert!(rows.len() > 1);
    let mut times = vec![];
    for _ in 0..9 {
        for lock in running {
            let p = lock.path().join("session.json");
            let bytes = std::fs::read(&p).unwrap();
            // A later modification time, as a saving run gives it.
            std::thread::sleep(Duration::from_millis(5));
            std::fs::write(&p, bytes).unwrap();
        }
        let t = Instant::now();
        b.refresh();
        times.push(t.elapsed());
    }
    (first, median(times), b)
}

fn frame_time(view: &BatchView) -> Duration {
    let theme = Theme::load(None, None, false).unwrap();
    let keymap = Keymap::load(None).unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 36)).unwrap();
    let mut times = vec![];
    for _ in 0..101 {
        let t = Instant::now();
        term.draw(|f| draw(f, view, &theme, &keymap)).unwrap();
        times.push(t.elapsed());
    }
    median(times)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_evootter");
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let o = std::process::Command::new(bin)
        .args(["run", "--start", "candidates", "--instance"])
        .arg(root.join("examples/pagekit_orphans"))
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let mut figures = vec![];
    for n in [5usize, 500] {
        let dir = tmp.path().join(format!("batch-{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let locks = batch(&dir, &run, n);
        let (first, again, mut b) = refresh_times(&dir, &locks);
        let view = BatchView::new(&dir, b.refresh());
        let rss = rss_kib();
        let frame = frame_time(&view);
        println!(
            "{n:>4} instances ({} running): first read {:.1} ms, refresh {:.2} ms, frame at 120x36 {:.3} ms, process RSS {} KiB",
            locks.len(),
            first.as_secs_f64() * 1e3,
            again.as_secs_f64() * 1e3,
            frame.as_secs_f64() * 1e3,
            rss
        );
        figures.push((first, again, frame));
    }
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
    println!(
        "500 against 5: first read {:.1}x, refresh {:.1}x, frame {:.2}x",
        ratio(figures[1].0, figures[0].0),
        ratio(figures[1].1, figures[0].1),
        ratio(figures[1].2, figures[0].2)
    );
}
