//! The workbench TUI: a full-screen view over a [`crate::workbench::Workbench`]. It draws only
//! from the session snapshots and events the workbench publishes, and acts only through its
//! commands; nothing here runs an execution or changes a session itself.

pub mod action;
pub mod app;
pub mod batch;
pub mod compare;
pub mod compare_figures;
pub mod fit;
pub mod highlight;
pub mod keymap;
pub mod log_diff;
pub mod picker;
pub mod search;
pub mod state;
pub mod terminal;
pub mod theme;
pub mod update;
pub mod views;
