//! `evootter demo`, `evootter tui` and `evootter open`: the workbench TUI on the bundled demo,
//! on a new session, or on a saved one (read-only when it is finished or from elsewhere).

use super::exit::error_text;
use anyhow::bail;
use clap::Args;
use evootter::engine::{Phase, SessionDoc, setup};
use evootter::tui::app::{self, Outcome, Settings, Source};
use evootter::tui::highlight::Highlighter;
use evootter::tui::keymap::Keymap;
use evootter::tui::terminal::with_terminal;
use evootter::tui::theme::Theme;
use evootter::workbench::{self, Ending, Options, RunOptions, StartError, Workbench};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Args, Default)]
pub struct LookArgs {
    /// The colour theme: dark, light, high-contrast (colour-blind safe), or one of yours in
    /// the config directory's themes/. NO_COLOR turns colours off. Default: dark.
    #[arg(long, value_name = "NAME")]
    theme: Option<String>,
}

#[derive(Args)]
pub struct TuiArgs {
    #[command(flatten)]
    looks: LookArgs,
    #[command(flatten)]
    request: super::run_args::RunArgs,
}

#[derive(Args)]
pub struct DemoArgs {
    #[command(flatten)]
    looks: LookArgs,
    /// Where the demo session goes. Default: a new directory in the user data directory.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace a session already in --out.
    #[arg(long)]
    force: bool,
}

#[derive(Args)]
pub struct OpenArgs {
    /// A session directory or its session.json, or a batch directory (`bench --out`): its
    /// Batch screen. Without it: a list of saved sessions.
    session: Option<PathBuf>,
    /// Two batch directories instance by instance (gained, lost, the cost difference; Enter
    /// shows an instance's two sessions side by side), or two sessions side by side.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with = "session")]
    compare: Option<Vec<PathBuf>>,
    /// A new budget for the session's model calls (it replaces the one it was started with),
    /// for a run that stopped at its --budget-usd.
    #[arg(long, value_name = "USD")]
    budget_usd: Option<f64>,
    #[command(flatten)]
    looks: LookArgs,
}

fn settings(a: &LookArgs) -> anyhow::Result<Settings> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let theme = Theme::load(
        a.theme.as_deref(),
        Theme::default_override_dir().as_deref(),
        no_color,
    )?;
    let keymap = Keymap::load(Keymap::default_override_file().as_deref())?;
    let dark = theme.name() != "light";
    Ok(Settings {
        theme,
        keymap,
        highlighter: Highlighter::new(dark, !no_color),
    })
}

/// A fresh directory for a session without `--out`: `<data dir>/sessions/NAME-<unix time>`.
fn default_out(name: &str) -> anyhow::Result<PathBuf> {
    let Some(root) = workbench::request::default_sessions_dir() else {
        bail!("this platform has no data directory; pass --out DIR");
    };
    Ok(root.join(format!("{name}-{}", evootter::clock::now_unix())))
}

/// The demo instance: `examples/envconf_errors`, from the current directory or the source tree.
fn demo_instance() -> anyhow::Result<PathBuf> {
    let rel = Path::new("examples/envconf_errors");
    if rel.join("instance.toml").is_file() {
        return Ok(rel.to_path_buf());
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    if built.join("instance.toml").is_file() {
        return Ok(built);
    }
    bail!(
        "the demo instance examples/envconf_errors is not here; run `evootter demo` from the \
         evootter source tree"
    )
}

/// The workbench draws on a terminal; without one (a pipe, a CI job) it would fail deep in
/// the terminal set-up after creating a session. Said before anything is created.
pub(super) fn need_terminal(command: &str) -> Option<ExitCode> {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return None;
    }
    eprintln!(
        "error: `evootter {command}` is the full-screen workbench and needs a terminal (stdin \
         and stdout are not one here). Without a terminal, `evootter run` runs a session \
         headless and `evootter show DIR` prints one."
    );
    Some(ExitCode::from(2))
}

pub async fn demo(a: DemoArgs) -> anyhow::Result<ExitCode> {
    if let Some(code) = need_terminal("demo") {
        return Ok(code);
    }
    let request = RunOptions {
        instance: Some(demo_instance()?),
        out: Some(match a.out {
            Some(o) => o,
            None => default_out("demo")?,
        }),
        force: a.force,
        ..RunOptions::default()
    };
    let prepared = request.prepare()?;
    workbench::recent::remember(&prepared.session_path);
    live(prepared, &a.looks).await
}

pub async fn tui(a: TuiArgs) -> anyhow::Result<ExitCode> {
    if let Some(code) = need_terminal("tui") {
        return Ok(code);
    }
    let mut request = RunOptions::from(a.request);
    if request.out.is_none() && request.instance.is_none() {
        let name = request
            .repo
            .as_deref()
            .and_then(Path::file_name)
            .map_or("session".into(), |n| n.to_string_lossy().into_owned());
        request.out = Some(default_out(&name)?);
    }
    let prepared = request.prepare()?;
    workbench::recent::remember(&prepared.session_path);
    live(prepared, &a.looks).await
}

async fn live(prepared: workbench::Prepared, look: &LookArgs) -> anyhow::Result<ExitCode> {
    let settings = settings(look)?;
    let options = Options {
        pause_before_crossover: true,
        ..Default::default()
    };
    let wb = match Workbench::start(prepared, options).await {
        Ok(wb) => wb,
        Err(StartError::Model { error, session }) => bail!(
            "{}\nThe session is saved; after fixing the cause, continue with:\n  evootter open {}",
            error_text(&error.into()),
            session.display()
        ),
        Err(e) => return Err(e.into()),
    };
    let source = Source::Live(Box::new(wb));
    let outcome = with_terminal(async |term| app::run(term, source, &settings, None).await).await?;
    if let Outcome::Live(f) = outcome {
        let session = f.session_path.display();
        match f.ending {
            Ending::Done { final_test } => {
                println!(
                    "done; final test: {}",
                    final_test.map_or("none".into(), |p| p.display().to_string())
                );
                println!("`evootter open {session}` shows the session again");
            }
            Ending::Cancelled => {
                println!("the session is saved; continue with:\n  evootter open {session}")
            }
            Ending::Failed { error } => bail!(
                "{error}\nThe session is saved; `evootter open {session}` continues it once the \
                 cause is fixed"
            ),
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn open(a: OpenArgs) -> anyhow::Result<ExitCode> {
    if let Some(code) = need_terminal("open") {
        return Ok(code);
    }
    if let Some([x, y]) = a.compare.as_deref() {
        evootter::tui::compare::check_pair(x, y)?;
        let base = settings(&a.looks)?;
        let open_session = async |term: &mut _, session: PathBuf, side: String| {
            let doc = SessionDoc::load(&session)?;
            let back_to = format!("the comparison ({side})");
            app::run(term, Source::ReadOnly(Arc::new(doc)), &base, Some(back_to)).await?;
            Ok(())
        };
        with_terminal(async |term| {
            evootter::tui::compare::browse(term, x, y, &base.theme, &base.keymap, open_session)
                .await
        })
        .await?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(dir) = a
        .session
        .as_deref()
        .filter(|p| p.is_dir() && evootter::bench::batch_dir::is_batch(p))
    {
        return batch(dir, &a.looks).await;
    }
    let settings = settings(&a.looks)?;
    let path = match &a.session {
        Some(p) => SessionDoc::file_in(p),
        None => {
            let entries = evootter::tui::picker::find(&evootter::tui::picker::roots());
            if entries.is_empty() {
                bail!(
                    "no saved sessions in {} and none made or opened elsewhere; start one with \
                     `evootter demo` or `evootter tui`, or name one: `evootter open DIR`",
                    evootter::tui::picker::roots()
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(" or ")
                );
            }
            let (theme, keymap) = (&settings.theme, &settings.keymap);
            let picked = with_terminal(async |term| {
                evootter::tui::picker::pick(term, &entries, theme, keymap).await
            })
            .await?;
            match picked {
                Some(p) => p,
                None => return Ok(ExitCode::SUCCESS),
            }
        }
    };
    let doc = SessionDoc::load(&path)?;
    workbench::recent::remember(&path);
    if let Some(why) = read_only_reason(&doc) {
        eprintln!("opening {} read-only: {why}", path.display());
        let source = Source::ReadOnly(Arc::new(doc));
        with_terminal(async |term| app::run(term, source, &settings, None).await).await?;
        return Ok(ExitCode::SUCCESS);
    }
    let overrides = RunOptions {
        budget_usd: a.budget_usd,
        ..RunOptions::default()
    };
    let prepared = workbench::resume(&path, &overrides)?;
    live(prepared, &a.looks).await
}

/// The Batch screen on a batch directory; Enter opens an instance's session read-only (a
/// running one as it stands: `bench` owns it), Esc there comes back.
pub(super) async fn batch(dir: &Path, look: &LookArgs) -> anyhow::Result<ExitCode> {
    let base = settings(look)?;
    let open_session = async |term: &mut _, session: PathBuf, _id: String| {
        let doc = SessionDoc::load(&session)?;
        let back_to = Some("the batch".to_string());
        app::run(term, Source::ReadOnly(Arc::new(doc)), &base, back_to).await?;
        Ok(())
    };
    with_terminal(async |term| {
        evootter::tui::batch::browse(term, dir, &base.theme, &base.keymap, open_session).await
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}

/// Why a session can only be looked at: finished, or its repository is not here as it was.
fn read_only_reason(doc: &SessionDoc) -> Option<String> {
    if doc.phase == Phase::Done {
        return Some("the session is finished".into());
    }
    if !doc.inputs.repo.is_dir() {
        return Some(format!(
            "its repository {} is not on this machine",
            doc.inputs.repo.display()
        ));
    }
    match setup::repo_fingerprint(&doc.inputs.repo) {
        Ok(f) if doc.inputs.repo_fingerprint.is_empty() || f == doc.inputs.repo_fingerprint => None,
        _ => Some(format!(
            "the repository {} changed since the session started",
            doc.inputs.repo.display()
        )),
    }
}
