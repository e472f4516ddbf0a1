//! The integration tests, one binary with a module per area (a binary each linked the whole
//! crate again: 27 of them took most of a clean build's time and disk). The slow groups run
//! alone by name: `cargo test --test main docker::`, `cargo test --test main tui_tmux::`.
//! Tests that end every execution of their process live in `process_kill.rs`.

mod common;
mod mock_http;

mod bad_input;
mod basebrt;
mod bench;
mod budget;
mod coverage;
mod curation;
mod docker;
mod environment;
mod examples;
mod export;
mod flaky;
mod interrupt;
mod line_tracer;
mod llm_batch;
mod llm_crossover;
mod llm_http;
mod out_dir;
mod prompts_cmd;
mod providers;
mod reach;
mod repair;
mod resume;
mod reuse;
mod scope;
mod sealed;
mod show;
mod slurm;
mod structure;
mod timeout;
mod tui_tmux;
mod unprivileged;
mod warm;
mod workbench;
mod workflow_http;
