//! The `evootter` binary: argument parsing and exit codes; the work is in the library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
