//! Loading and rendering of the prompt templates (`prompts/*.j2`).
//!
//! Every step has one template. The built-in copy is compiled in; a file with the same name in
//! the user's override directory (`<config dir>/evootter/prompts/NAME.j2`) replaces it, so a user
//! can read and change exactly what is sent.
//!
//! Layout of a template: the rendered text before the first line that is exactly
//! `=== user ===` is the system prompt, the text after it is the user prompt. Without that line
//! the whole text is the user prompt. Keep variables out of the system part, so that text from
//! an issue can never move the split.
//!
//! Undefined variables are errors (strict mode): a missing top-level variable is reported by
//! name before rendering, and any other undefined value (a missing field) fails the render with
//! the template name and line.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use serde::{Deserialize, Serialize};

/// The line that separates the system prompt from the user prompt in a rendered template.
pub const USER_MARKER: &str = "=== user ===";

/// A line of a template's user part that ends a prefix its prompts share with other steps'
/// (the issue, the localized functions): removed from the text, its place kept as a cache
/// point, where a provider with explicit cache breakpoints (Anthropic) puts one.
pub const CACHE_MARKER: &str = "=== cache ===";

/// One LLM step of the workflow; the snake_case name is also the template's file stem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptKind {
    LocalizeFiles,
    LocalizeFunctions,
    LocalizeRefine,
    ContextImports,
    ContextLocation,
    GenerateOne,
    GenerateMany,
    MorphIssue,
    SelectHalf,
    Crossover,
    Repair,
}

impl PromptKind {
    pub const ALL: [PromptKind; 11] = [
        PromptKind::LocalizeFiles,
        PromptKind::LocalizeFunctions,
        PromptKind::LocalizeRefine,
        PromptKind::ContextImports,
        PromptKind::ContextLocation,
        PromptKind::GenerateOne,
        PromptKind::GenerateMany,
        PromptKind::MorphIssue,
        PromptKind::SelectHalf,
        PromptKind::Crossover,
        PromptKind::Repair,
    ];

    /// The snake_case name, equal to the serde name and the template's file stem.
    pub fn name(self) -> &'static str {
        match self {
            PromptKind::LocalizeFiles => "localize_files",
            PromptKind::LocalizeFunctions => "localize_functions",
            PromptKind::LocalizeRefine => "localize_refine",
            PromptKind::ContextImports => "context_imports",
            PromptKind::ContextLocation => "context_location",
            PromptKind::GenerateOne => "generate_one",
            PromptKind::GenerateMany => "generate_many",
            PromptKind::MorphIssue => "morph_issue",
            PromptKind::SelectHalf => "select_half",
            PromptKind::Crossover => "crossover",
            PromptKind::Repair => "repair",
        }
    }

    /// The template's file name, `NAME.j2`.
    pub fn file_name(self) -> String {
        format!("{}.j2", self.name())
    }

    pub(crate) fn builtin(self) -> &'static str {
        macro_rules! builtin {
            ($name:literal) => {
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/prompts/",
                    $name,
                    ".j2"
                ))
            };
        }
        match self {
            PromptKind::LocalizeFiles => builtin!("localize_files"),
            PromptKind::LocalizeFunctions => builtin!("localize_functions"),
            PromptKind::LocalizeRefine => builtin!("localize_refine"),
            PromptKind::ContextImports => builtin!("context_imports"),
            PromptKind::ContextLocation => builtin!("context_location"),
            PromptKind::GenerateOne => builtin!("generate_one"),
            PromptKind::GenerateMany => builtin!("generate_many"),
            PromptKind::MorphIssue => builtin!("morph_issue"),
            PromptKind::SelectHalf => builtin!("select_half"),
            PromptKind::Crossover => builtin!("crossover"),
            PromptKind::Repair => builtin!("repair"),
        }
    }
}

impl fmt::Display for PromptKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The issue-morphing styles of heterogeneous prompting (paper III-B), as the `style` variable
/// of `morph_issue` expects them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MorphStyle {
    #[serde(rename = "standard")]
    Standard,
    #[serde(rename = "simple")]
    Simple,
    #[serde(rename = "dropCode")]
    DropCode,
    #[serde(rename = "initTest")]
    InitTest,
    #[serde(rename = "initPatch")]
    InitPatch,
}

impl MorphStyle {
    pub const ALL: [MorphStyle; 5] = [
        MorphStyle::Standard,
        MorphStyle::Simple,
        MorphStyle::DropCode,
        MorphStyle::InitTest,
        MorphStyle::InitPatch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MorphStyle::Standard => "standard",
            MorphStyle::Simple => "simple",
            MorphStyle::DropCode => "dropCode",
            MorphStyle::InitTest => "initTest",
            MorphStyle::InitPatch => "initPatch",
        }
    }
}

/// Where a template's text came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "origin", rename_all = "snake_case")]
pub enum PromptOrigin {
    BuiltIn,
    Overridden { path: PathBuf },
}

/// A rendered prompt, ready for a provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderedPrompt {
    pub system: Option<String>,
    pub user: String,
    /// Byte offsets in `user` where a shared prefix ends (the template's `=== cache ===`
    /// lines), ascending, none at either end.
    pub cache_points: Vec<usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("cannot read prompt template {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("prompt template `{template}` does not parse: {message}")]
    Syntax { template: String, message: String },
    #[error(
        "prompt template `{template}` uses the variable `{variable}`, which the caller did not provide (provided: {provided})"
    )]
    MissingVariable {
        template: String,
        variable: String,
        provided: String,
    },
    #[error(
        "the context for prompt template `{template}` must serialize to a JSON object: {message}"
    )]
    Context { template: String, message: String },
    #[error("cannot render prompt template `{template}`: {message}")]
    Render { template: String, message: String },
}

/// The default override directory: `<config dir>/prompts` of `ProjectDirs("", "", "evootter")`.
/// `None` when the platform has no home directory.
pub fn default_override_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "evootter").map(|d| d.config_dir().join("prompts"))
}

/// All prompt templates, compiled and ready to render.
pub struct Prompts {
    env: Environment<'static>,
    sources: BTreeMap<PromptKind, (String, PromptOrigin)>,
}

impl fmt::Debug for Prompts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompts")
            .field(
                "origins",
                &self.sources.values().map(|(_, o)| o).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Prompts {
    /// Only the compiled-in templates.
    pub fn builtin() -> Result<Self, PromptError> {
        Self::load(None)
    }

    /// The compiled-in templates, each replaced by `DIR/NAME.j2` when that file exists.
    /// A missing directory is not an error (most users never override anything); an
    /// unreadable or unparsable override is, since silently falling back would hide the
    /// user's edit.
    pub fn load(override_dir: Option<&Path>) -> Result<Self, PromptError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        // Prompts are plain text: HTML escaping would corrupt code and issue text.
        env.set_auto_escape_callback(|_| AutoEscape::None);
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        // Lets a template reject a bad value with a message, e.g. an unknown morph style.
        env.add_function("fail", |msg: String| -> Result<String, minijinja::Error> {
            Err(minijinja::Error::new(
                minijinja::ErrorKind::InvalidOperation,
                msg,
            ))
        });
        let mut sources = BTreeMap::new();
        for kind in PromptKind::ALL {
            let (text, origin) = match override_dir.map(|d| d.join(kind.file_name())) {
                Some(path) if path.is_file() => {
                    let text =
                        std::fs::read_to_string(&path).map_err(|source| PromptError::Read {
                            path: path.clone(),
                            source,
                        })?;
                    (text, PromptOrigin::Overridden { path })
                }
                _ => (kind.builtin().to_string(), PromptOrigin::BuiltIn),
            };
            env.add_template_owned(kind.name().to_string(), text.clone())
                .map_err(|e| PromptError::Syntax {
                    template: describe(kind, &origin),
                    message: format!("{e:#}"),
                })?;
            sources.insert(kind, (text, origin));
        }
        Ok(Self { env, sources })
    }

    /// The exact template text used for `kind`.
    pub fn source(&self, kind: PromptKind) -> &str {
        &self.sources[&kind].0
    }

    /// Whether `kind` is the built-in template or the user's file.
    pub fn origin(&self, kind: PromptKind) -> &PromptOrigin {
        &self.sources[&kind].1
    }

    /// True when `kind` is the user's file and it does not begin with the built-in template's
    /// shared part (everything before its first `=== cache ===` line, comments aside): its
    /// prompts then share no prefix with the other steps' and a provider caches nothing of them.
    pub fn breaks_shared_prefix(&self, kind: PromptKind) -> bool {
        matches!(self.origin(kind), PromptOrigin::Overridden { .. })
            && shared_head(self.source(kind)).is_none_or(|h| Some(h) != shared_head(kind.builtin()))
    }

    /// How a run names `kind`'s template when it is the user's: the file, and whether its
    /// prompts can still be cached. `None` for a built-in template.
    pub fn yours(&self, kind: PromptKind) -> Option<String> {
        let PromptOrigin::Overridden { path } = self.origin(kind) else {
            return None;
        };
        let mut out = format!("prompts/{} of yours ({})", kind.file_name(), path.display());
        if self.breaks_shared_prefix(kind) {
            out.push_str(": no shared prefix, no caching");
        }
        Some(out)
    }

    /// Renders `kind` with `ctx`, which must serialize to a map of the template's variables.
    pub fn render<C: Serialize + ?Sized>(
        &self,
        kind: PromptKind,
        ctx: &C,
    ) -> Result<RenderedPrompt, PromptError> {
        let name = describe(kind, self.origin(kind));
        let value = serde_json::to_value(ctx).map_err(|e| PromptError::Context {
            template: name.clone(),
            message: e.to_string(),
        })?;
        let serde_json::Value::Object(map) = &value else {
            return Err(PromptError::Context {
                template: name,
                message: format!("got {}", json_kind(&value)),
            });
        };
        let tmpl = self
            .env
            .get_template(kind.name())
            .map_err(|e| PromptError::Render {
                template: name.clone(),
                message: format!("{e:#}"),
            })?;
        // Checked up front so the error names the variable instead of "undefined value".
        let mut missing: Vec<String> = tmpl
            .undeclared_variables(false)
            .into_iter()
            .filter(|v| !map.contains_key(v) && self.env.globals().all(|(g, _)| g != v))
            .collect();
        missing.sort();
        if let Some(variable) = missing.into_iter().next() {
            let mut provided: Vec<&str> = map.keys().map(String::as_str).collect();
            provided.sort_unstable();
            return Err(PromptError::MissingVariable {
                template: name,
                variable,
                provided: provided.join(", "),
            });
        }
        let text = tmpl.render(&value).map_err(|e| PromptError::Render {
            template: name,
            message: format!("{e:#}"),
        })?;
        Ok(split_system(&text))
    }
}

fn describe(kind: PromptKind, origin: &PromptOrigin) -> String {
    match origin {
        PromptOrigin::BuiltIn => kind.file_name(),
        PromptOrigin::Overridden { path } => path.display().to_string(),
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "an object",
    }
}

/// A template's text up to its first `=== cache ===` line with its `{# #}` comments taken
/// out, trimmed; `None` without such a line.
fn shared_head(source: &str) -> Option<String> {
    let mut text = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(start) = rest.find("{#") {
        text.push_str(&rest[..start]);
        rest = rest[start..]
            .find("#}")
            .map_or("", |end| &rest[start + end + 2..]);
    }
    text.push_str(rest);
    let mut head = String::new();
    for line in text.split_inclusive('\n') {
        if line.trim_end() == CACHE_MARKER {
            return Some(head.trim().to_string());
        }
        head.push_str(line);
    }
    None
}

/// Splits rendered text at the first `=== user ===` line, and takes the `=== cache ===` lines
/// out of the user part as cache points.
fn split_system(text: &str) -> RenderedPrompt {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == USER_MARKER {
            let system = text[..offset].trim();
            let (user, cache_points) = cache_points(text[offset + line.len()..].trim());
            return RenderedPrompt {
                system: (!system.is_empty()).then(|| system.to_string()),
                user,
                cache_points,
            };
        }
        offset += line.len();
    }
    let (user, cache_points) = cache_points(text.trim());
    RenderedPrompt {
        system: None,
        user,
        cache_points,
    }
}

/// `user` without its `=== cache ===` lines, and where they were.
fn cache_points(user: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(user.len());
    let mut points = vec![];
    for line in user.split_inclusive('\n') {
        if line.trim_end() == CACHE_MARKER {
            points.push(out.len());
        } else {
            out.push_str(line);
        }
    }
    let out = out.trim_end().to_string();
    points.retain(|p| *p > 0 && *p < out.len());
    points.dedup();
    (out, points)
}
