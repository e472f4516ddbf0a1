//! Command-line interface: `run`, `mutants`, `eval`, `show`, `prompts`. Each command turns flags into engine
//! calls and prints for people (or JSON for scripts); errors name what is wrong and what to do.

mod bench_cluster;
mod bench_cmd;
mod eval_cmd;
mod exit;
mod mutants_cmd;
mod progress;
mod prompts_cmd;
mod run_args;
mod run_cmd;
mod show_cmd;
mod tui_cmd;

use clap::{Parser, Subcommand};
use exit::error_text;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "evootter",
    version,
    about = "Generate, evolve and inspect bug reproduction tests for Python repositories (EvoOtter)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evolve a population of candidate tests down to one bug reproduction test.
    Run(Box<run_cmd::RunCmdArgs>),
    /// List the rule-based mutants of the focal functions (paper Table I).
    Mutants(mutants_cmd::MutantsArgs),
    /// Check whether a test is fail-to-pass against a golden patch.
    Eval(eval_cmd::EvalArgs),
    /// Print a saved session: kill matrices, selections, and the log diff of a (test, mutant).
    Show(show_cmd::ShowArgs),
    /// The prompt templates of the model's steps: which are yours, their text, a copy to edit.
    Prompts(prompts_cmd::PromptsArgs),
    /// A batch of SWE-bench-style instances, scored as the public harnesses score; also
    /// --summary DIR and --compare DIR_A DIR_B.
    Bench(Box<bench_cmd::BenchArgs>),
    /// The workbench on the bundled demo: scripted model replies, real mutants and pytest runs.
    Demo(tui_cmd::DemoArgs),
    /// The workbench on a new session (every option of `run`), paused before each crossover.
    Tui(Box<tui_cmd::TuiArgs>),
    /// The workbench on a saved session (resumed, or read-only when finished or foreign);
    /// without one, a list of saved sessions.
    Open(tui_cmd::OpenArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    evootter::secrets::hold_environment();
    if matches!(
        cli.command,
        Command::Show(_) | Command::Mutants(_) | Command::Prompts(_)
    ) {
        // Printing commands end quietly when their reader does (`show | head`), as Unix
        // tools do. Not for `run`, whose network and pipe errors must stay errors.
        // SAFETY: setting a signal disposition before any thread that could race it exists.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(async {
        match cli.command {
            Command::Run(a) => run_cmd::run(*a).await,
            Command::Mutants(a) => mutants_cmd::run(a),
            Command::Eval(a) => eval_cmd::run(a).await,
            Command::Show(a) => show_cmd::run(a),
            Command::Prompts(a) => prompts_cmd::run(a),
            Command::Bench(a) => bench_cmd::run(*a).await,
            Command::Demo(a) => tui_cmd::demo(a).await,
            Command::Tui(a) => tui_cmd::tui(*a).await,
            Command::Open(a) => tui_cmd::open(a).await,
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap checks a command line's definition only when it is parsed (in debug builds): a
    /// clash between two commands' arguments would otherwise surface as a panic at run time.
    #[test]
    fn every_command_line_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
