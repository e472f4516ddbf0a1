//! `evootter prompts`: which prompt template each model step uses (built in, or the user's
//! file in the config directory), the text of one, and a copy of the built-in ones to edit.

use anyhow::{Context, bail};
use clap::Args;
use evootter::prompts::{PromptKind, PromptOrigin, Prompts, default_override_dir};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct PromptsArgs {
    /// Print the template text used for this step (e.g. crossover).
    #[arg(long, value_name = "NAME")]
    show: Option<String>,
    /// Copy the built-in templates into the override directory (or --dir) to edit them;
    /// files already there are kept unless --force.
    #[arg(long)]
    export: bool,
    /// With --export: where to write instead of the override directory.
    #[arg(long, value_name = "DIR", requires = "export")]
    dir: Option<PathBuf>,
    /// With --export: overwrite templates already in the directory.
    #[arg(long)]
    force: bool,
}

pub fn run(a: PromptsArgs) -> anyhow::Result<ExitCode> {
    let dir = default_override_dir();
    if a.export {
        let to = match &a.dir {
            Some(d) => d.clone(),
            None => dir
                .clone()
                .context("this platform has no config directory; name one with --dir DIR")?,
        };
        export(&to, a.force)?;
        return Ok(ExitCode::SUCCESS);
    }
    // Loading checks every override, so a broken edit is reported here and not mid-run.
    let prompts = Prompts::load(dir.as_deref())?;
    if let Some(name) = &a.show {
        let Some(kind) = PromptKind::ALL.into_iter().find(|k| k.name() == name) else {
            bail!("no prompt `{name}`; the steps are: {}", names());
        };
        print!("{}", prompts.source(kind));
        return Ok(ExitCode::SUCCESS);
    }
    match &dir {
        Some(d) => println!("override directory: {}", d.display()),
        None => println!("override directory: none (this platform has no config directory)"),
    }
    for kind in PromptKind::ALL {
        let origin = match prompts.origin(kind) {
            PromptOrigin::BuiltIn => "built in".to_string(),
            PromptOrigin::Overridden { path } if prompts.breaks_shared_prefix(kind) => format!(
                "yours: {} (no shared prefix with the other steps: no caching)",
                path.display()
            ),
            PromptOrigin::Overridden { path } => format!("yours: {}", path.display()),
        };
        println!("  {:<20} {origin}", kind.name());
    }
    println!(
        "`evootter prompts --show NAME` prints one; `--export` copies the built-in ones to edit"
    );
    Ok(ExitCode::SUCCESS)
}

fn names() -> String {
    PromptKind::ALL.map(|k| k.name()).join(", ")
}

fn export(to: &std::path::Path, force: bool) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    let builtin = Prompts::builtin()?;
    let (mut written, mut kept) = (0, Vec::new());
    for kind in PromptKind::ALL {
        let path = to.join(kind.file_name());
        if path.exists() && !force {
            kept.push(kind.file_name());
            continue;
        }
        std::fs::write(&path, builtin.source(kind))
            .with_context(|| format!("cannot write {}", path.display()))?;
        written += 1;
    }
    println!("wrote {written} templates to {}", to.display());
    if !kept.is_empty() {
        println!(
            "kept your {} (pass --force to replace them with the built-in text)",
            kept.join(", ")
        );
    }
    if Some(to) == default_override_dir().as_deref() {
        println!("runs now use these files; delete one to go back to the built-in template");
    } else {
        println!("runs read templates from the override directory; copy the ones you edit there");
    }
    Ok(())
}
