//! Prompt templates for every LLM step of EvoOtter and robust parsing of the model's replies.
//!
//! The templates are files in the repository's `prompts/` directory, compiled in as defaults
//! and overridable by a user's own copy (see [`templates`]); [`parse`] turns replies back into
//! tests, paths, focal functions and ids without ever panicking.

pub mod parse;
pub mod templates;

pub use parse::{
    ParseError, ParsedIds, ParsedTest, ParsedTests, extract_python_blocks, parse_focal,
    parse_id_list, parse_imports, parse_paths, parse_single_path, parse_tests,
};
pub use templates::{
    MorphStyle, PromptError, PromptKind, PromptOrigin, Prompts, RenderedPrompt, USER_MARKER,
    default_override_dir,
};

#[cfg(test)]
mod tests;
