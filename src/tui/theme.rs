//! Colour themes for the TUI: one [`Style`] for every [`Role`] a screen draws, so that screens
//! name what a thing is (a killed cell, a selected row) and never pick colours themselves.
//!
//! The built-in themes are the TOML files in the repository's `themes/` directory, compiled in;
//! the format is described at the top of each. A user's `<config dir>/themes/NAME.toml` replaces
//! the built-in theme of that name or adds a new one. It needs to set only the roles it changes:
//! the rest come from the built-in theme its `base` key names (dark when absent). A role it does
//! set is set whole, so what a user writes for a role is exactly what is drawn.
//!
//! Under `NO_COLOR` nothing is coloured, whichever theme is chosen: each role keeps only the
//! modifier that carries its meaning (the selection is reversed, so it stays visible).

pub(crate) mod toml_place;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use toml::Spanned;
use toml::de::DeValue;

pub use toml_place::TomlFileError;
use toml_place::{Place, describe, entries_in_order, parse_table, read_if_present};

/// The theme used when none is named, and the `base` of a user file that names none.
const DEFAULT_THEME: &str = "dark";

macro_rules! builtin {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/themes/",
                $name,
                ".toml"
            )),
        )
    };
}

/// The built-in themes: name and file text.
const BUILTIN: &[(&str, &str)] = &[
    builtin!("dark"),
    builtin!("light"),
    builtin!("high-contrast"),
];

/// What a piece of the screen is; a theme gives each one a style. The snake_case name is the
/// key in a theme file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Text,
    Dim,
    Title,
    Border,
    BorderFocused,
    Selected,
    Header,
    Footer,
    Key,
    Warning,
    Error,
    Scripted,
    Kept,
    Dropped,
    Vetoed,
    SearchHit,
    CellKilledStatus,
    CellKilledLog,
    CellRescued,
    CellSurvived,
    CellError,
    CellTimeout,
    CellFlaky,
    CellNotReached,
    CellPending,
    CellRunning,
    DiffAdd,
    DiffRemove,
    DiffAddEmph,
    DiffRemoveEmph,
    DiffHunk,
    DiffContext,
    Progress,
}

impl Role {
    /// How a test's row looks by its fate at the gate, on every screen that lists tests.
    pub fn of_fate(fate: crate::engine::Fate) -> Role {
        use crate::engine::Fate;
        match fate {
            Fate::Kept | Fate::Yours | Fate::Pinned => Role::Kept,
            Fate::Vetoed => Role::Vetoed,
            Fate::Dropped | Fate::Edited | Fate::Repaired | Fate::Withdrawn => Role::Dropped,
            Fate::Pending => Role::Text,
        }
    }

    pub const ALL: &'static [Role] = &[
        Role::Text,
        Role::Dim,
        Role::Title,
        Role::Border,
        Role::BorderFocused,
        Role::Selected,
        Role::Header,
        Role::Footer,
        Role::Key,
        Role::Warning,
        Role::Error,
        Role::Scripted,
        Role::Kept,
        Role::Dropped,
        Role::Vetoed,
        Role::SearchHit,
        Role::CellKilledStatus,
        Role::CellKilledLog,
        Role::CellRescued,
        Role::CellSurvived,
        Role::CellError,
        Role::CellTimeout,
        Role::CellFlaky,
        Role::CellNotReached,
        Role::CellPending,
        Role::CellRunning,
        Role::DiffAdd,
        Role::DiffRemove,
        Role::DiffAddEmph,
        Role::DiffRemoveEmph,
        Role::DiffHunk,
        Role::DiffContext,
        Role::Progress,
    ];

    /// The key in a theme file (the serde name).
    pub fn name(self) -> &'static str {
        match self {
            Role::Text => "text",
            Role::Dim => "dim",
            Role::Title => "title",
            Role::Border => "border",
            Role::BorderFocused => "border_focused",
            Role::Selected => "selected",
            Role::Header => "header",
            Role::Footer => "footer",
            Role::Key => "key",
            Role::Warning => "warning",
            Role::Error => "error",
            Role::Scripted => "scripted",
            Role::Kept => "kept",
            Role::Dropped => "dropped",
            Role::Vetoed => "vetoed",
            Role::SearchHit => "search_hit",
            Role::CellKilledStatus => "cell_killed_status",
            Role::CellKilledLog => "cell_killed_log",
            Role::CellRescued => "cell_rescued",
            Role::CellSurvived => "cell_survived",
            Role::CellError => "cell_error",
            Role::CellTimeout => "cell_timeout",
            Role::CellFlaky => "cell_flaky",
            Role::CellNotReached => "cell_not_reached",
            Role::CellPending => "cell_pending",
            Role::CellRunning => "cell_running",
            Role::DiffAdd => "diff_add",
            Role::DiffRemove => "diff_remove",
            Role::DiffAddEmph => "diff_add_emph",
            Role::DiffRemoveEmph => "diff_remove_emph",
            Role::DiffHunk => "diff_hunk",
            Role::DiffContext => "diff_context",
            Role::Progress => "progress",
        }
    }

    fn from_name(name: &str) -> Option<Role> {
        Role::ALL.iter().copied().find(|r| r.name() == name)
    }

    /// The style of this role without colours (`NO_COLOR`): a modifier only where it carries
    /// meaning. Reversed is kept for the selection alone, so nothing else can pass for it;
    /// cell kinds differ by glyph anyway, the modifiers only help the eye.
    fn monochrome(self) -> Style {
        let m = match self {
            Role::Selected => Modifier::REVERSED,
            Role::Dim | Role::Dropped | Role::CellPending | Role::CellNotReached => Modifier::DIM,
            Role::Title
            | Role::BorderFocused
            | Role::Key
            | Role::Warning
            | Role::Kept
            | Role::CellKilledStatus
            | Role::CellKilledLog
            | Role::CellRunning
            | Role::DiffHunk => Modifier::BOLD,
            Role::Header | Role::Error | Role::CellRescued => Modifier::BOLD | Modifier::UNDERLINED,
            Role::CellError | Role::CellTimeout | Role::CellFlaky => Modifier::UNDERLINED,
            // Out by the user's act, not by selection: struck through, unlike `dropped`.
            Role::Vetoed => Modifier::CROSSED_OUT,
            Role::SearchHit => Modifier::BOLD | Modifier::UNDERLINED | Modifier::ITALIC,
            Role::DiffAddEmph | Role::DiffRemoveEmph => Modifier::BOLD | Modifier::UNDERLINED,
            Role::Text
            | Role::Border
            | Role::Footer
            | Role::Scripted
            | Role::CellSurvived
            | Role::DiffAdd
            | Role::DiffRemove
            | Role::DiffContext
            | Role::Progress => Modifier::empty(),
        };
        Style::default().add_modifier(m)
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error(transparent)]
    File(#[from] TomlFileError),
    #[error(
        "{file} line {line}, column {column}: unknown role `{key}`; roles are: {roles} (and `base`, the built-in theme to start from)"
    )]
    UnknownRole {
        file: String,
        line: usize,
        column: usize,
        key: String,
        roles: String,
    },
    #[error("{file} line {line}, column {column}, key `{key}`: {problem}")]
    BadValue {
        file: String,
        line: usize,
        column: usize,
        key: String,
        problem: String,
    },
    #[error(
        "there is no theme named `{name}`; available themes: {available} (your own go in themes/NAME.toml in evootter's config directory)"
    )]
    UnknownTheme { name: String, available: String },
}

/// A style for every role.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    name: String,
    styles: BTreeMap<Role, Style>,
}

impl Theme {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The style of `role`; a role a theme leaves out is drawn plain.
    pub fn style(&self, role: Role) -> Style {
        self.styles.get(&role).copied().unwrap_or_default()
    }

    /// `name`: None = "dark". `override_dir`: the user's themes directory (None: none); a
    /// directory that does not exist holds no themes. `no_color`: NO_COLOR (see
    /// [`Theme::no_color_from_env`]); the theme is still read, so a broken one is still reported.
    pub fn load(
        name: Option<&str>,
        override_dir: Option<&Path>,
        no_color: bool,
    ) -> Result<Theme, ThemeError> {
        let name = name.unwrap_or(DEFAULT_THEME);
        let mut styles = match read_user_theme(name, override_dir)? {
            Some((path, text)) => {
                let user = ThemeFile::parse(&text, &path.display().to_string())?;
                // The parse has checked that a base names a built-in theme.
                let base = user.base.as_deref().unwrap_or(DEFAULT_THEME);
                let mut styles = builtin(base).transpose()?.unwrap_or_default().styles;
                styles.extend(user.styles);
                styles
            }
            None => match builtin(name) {
                Some(file) => file?.styles,
                None => {
                    return Err(ThemeError::UnknownTheme {
                        name: name.to_string(),
                        available: Theme::available(override_dir).join(", "),
                    });
                }
            },
        };
        if no_color {
            styles = Role::ALL.iter().map(|&r| (r, r.monochrome())).collect();
        }
        Ok(Theme {
            name: name.to_string(),
            styles,
        })
    }

    /// The user's themes directory (config dir / themes), if the platform has one.
    pub fn default_override_dir() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "evootter").map(|d| d.config_dir().join("themes"))
    }

    /// Names of every theme available: built-in ones and the user's, sorted, each once.
    pub fn available(override_dir: Option<&Path>) -> Vec<String> {
        let mut names: Vec<String> = builtin_names().iter().map(|n| n.to_string()).collect();
        // An unreadable directory offers no themes here; loading one by name reports why.
        if let Some(entries) = override_dir.and_then(|d| std::fs::read_dir(d).ok()) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "toml")
                    && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
                    && is_theme_name(stem)
                {
                    names.push(stem.to_string());
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// Whether `NO_COLOR` asks for no colours: set and not empty (<https://no-color.org>).
    pub fn no_color_from_env() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }
}

fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(name, _)| *name).collect()
}

/// The built-in theme `name`, if there is one.
fn builtin(name: &str) -> Option<Result<ThemeFile, ThemeError>> {
    let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
    Some(ThemeFile::parse(
        text,
        &format!("themes/{name}.toml (built in)"),
    ))
}

/// The user's file for theme `name` and its text, if there is one.
fn read_user_theme(
    name: &str,
    override_dir: Option<&Path>,
) -> Result<Option<(PathBuf, String)>, ThemeError> {
    let Some(path) = override_dir
        .filter(|_| is_theme_name(name))
        .map(|dir| dir.join(format!("{name}.toml")))
    else {
        return Ok(None);
    };
    match read_if_present(&path) {
        Ok(text) => Ok(text.map(|t| (path, t))),
        Err(source) => Err(TomlFileError::Read {
            kind: "theme",
            path,
            source,
        }
        .into()),
    }
}

/// A name that can only mean a file directly in the themes directory.
fn is_theme_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// One theme file as written: the roles it sets and the base it names.
#[derive(Default)]
struct ThemeFile {
    base: Option<String>,
    styles: BTreeMap<Role, Style>,
}

impl ThemeFile {
    fn parse(text: &str, file: &str) -> Result<ThemeFile, ThemeError> {
        let doc = parse_table(text, file)?;
        let at = Locator { file, text };
        let mut parsed = ThemeFile::default();
        for (key, value) in entries_in_order(doc.get_ref()) {
            let key_name: &str = key.get_ref();
            if key_name == "base" {
                let base = match value.get_ref() {
                    DeValue::String(base) if builtin_names().contains(&base.as_ref()) => base,
                    other => {
                        return Err(at.bad_value(
                            value.span().start,
                            "base",
                            format!(
                                "{} is not a built-in theme; use one of {}",
                                describe(other),
                                builtin_names().join(", ")
                            ),
                        ));
                    }
                };
                parsed.base = Some(base.to_string());
                continue;
            }
            let Some(role) = Role::from_name(key_name) else {
                let place = Place::at(text, key.span().start);
                return Err(ThemeError::UnknownRole {
                    file: file.to_string(),
                    line: place.line,
                    column: place.column,
                    key: key_name.to_string(),
                    roles: Role::ALL
                        .iter()
                        .map(|r| r.name())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            };
            parsed.styles.insert(role, at.style(role, value)?);
        }
        Ok(parsed)
    }
}

/// Turns offsets in one file into the errors that name it.
struct Locator<'a> {
    file: &'a str,
    text: &'a str,
}

impl Locator<'_> {
    fn bad_value(&self, offset: usize, key: &str, problem: String) -> ThemeError {
        let place = Place::at(self.text, offset);
        ThemeError::BadValue {
            file: self.file.to_string(),
            line: place.line,
            column: place.column,
            key: key.to_string(),
            problem,
        }
    }

    fn style(&self, role: Role, value: &Spanned<DeValue<'_>>) -> Result<Style, ThemeError> {
        let DeValue::Table(fields) = value.get_ref() else {
            return Err(self.bad_value(
                value.span().start,
                role.name(),
                format!(
                    "{} is not a style; write a table such as {} = {{ fg = \"red\", bold = true }}",
                    describe(value.get_ref()),
                    role.name()
                ),
            ));
        };
        let mut style = Style::default();
        for (field, value) in entries_in_order(fields) {
            let field_name: &str = field.get_ref();
            let key = format!("{role}.{field_name}");
            let modifier = match field_name {
                "fg" => {
                    style = style.fg(self.color(&key, value)?);
                    continue;
                }
                "bg" => {
                    style = style.bg(self.color(&key, value)?);
                    continue;
                }
                "bold" => Modifier::BOLD,
                "italic" => Modifier::ITALIC,
                "underlined" => Modifier::UNDERLINED,
                "reversed" => Modifier::REVERSED,
                "dim" => Modifier::DIM,
                "crossed_out" => Modifier::CROSSED_OUT,
                _ => {
                    return Err(self.bad_value(
                        field.span().start,
                        &key,
                        format!(
                            "`{field_name}` is not part of a style; use fg, bg, bold, italic, underlined, reversed, dim or crossed_out"
                        ),
                    ));
                }
            };
            style = match value.get_ref() {
                DeValue::Boolean(true) => style.add_modifier(modifier),
                DeValue::Boolean(false) => style.remove_modifier(modifier),
                other => {
                    return Err(self.bad_value(
                        value.span().start,
                        &key,
                        format!("{} is not true or false", describe(other)),
                    ));
                }
            };
        }
        Ok(style)
    }

    fn color(&self, key: &str, value: &Spanned<DeValue<'_>>) -> Result<Color, ThemeError> {
        let color = match value.get_ref() {
            DeValue::String(s) => Color::from_str(s).ok(),
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .and_then(|n| u8::try_from(n).ok())
                .map(Color::Indexed),
            _ => None,
        };
        color.ok_or_else(|| {
            self.bad_value(
                value.span().start,
                key,
                format!(
                    "{} is not a colour; use a name (red, light_blue, ...), #rrggbb or 0-255",
                    describe(value.get_ref())
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde::de::IntoDeserializer;
    use serde::de::value::{Error as ValueError, StrDeserializer};

    use super::*;

    fn user_theme(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn load_user(name: &str, text: &str) -> Result<Theme, ThemeError> {
        let (dir, _) = user_theme(name, text);
        Theme::load(Some(name), Some(dir.path()), false)
    }

    #[test]
    fn role_names_are_the_serde_names() {
        for &role in Role::ALL {
            let de: StrDeserializer<'_, ValueError> = role.name().into_deserializer();
            assert_eq!(Role::deserialize(de).unwrap(), role);
        }
        let mut sorted = Role::ALL.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), Role::ALL.len());
    }

    #[test]
    fn every_builtin_theme_loads_and_sets_every_role() {
        for (name, _) in BUILTIN {
            let file = builtin(name).unwrap().unwrap_or_else(|e| panic!("{e}"));
            assert!(file.base.is_none(), "{name} names a base");
            let missing: Vec<Role> = Role::ALL
                .iter()
                .copied()
                .filter(|r| !file.styles.contains_key(r))
                .collect();
            assert!(missing.is_empty(), "{name} leaves out {missing:?}");
            let theme = Theme::load(Some(name), None, false).unwrap();
            assert_eq!(theme.name(), *name);
        }
        assert_eq!(Theme::load(None, None, false).unwrap().name(), "dark");
    }

    #[test]
    fn builtin_themes_tell_the_cell_kinds_apart() {
        for (name, _) in BUILTIN {
            let theme = Theme::load(Some(name), None, false).unwrap();
            let cells: Vec<Role> = Role::ALL
                .iter()
                .copied()
                .filter(|r| r.name().starts_with("cell_"))
                .collect();
            assert_eq!(cells.len(), 10);
            for (i, a) in cells.iter().enumerate() {
                for b in &cells[i + 1..] {
                    assert_ne!(theme.style(*a), theme.style(*b), "{name}: {a} and {b}");
                }
            }
        }
    }

    #[test]
    fn high_contrast_cells_use_okabe_ito_and_greys_only() {
        let okabe_ito = [
            Color::Rgb(0x00, 0x00, 0x00),
            Color::Rgb(0xE6, 0x9F, 0x00),
            Color::Rgb(0x56, 0xB4, 0xE9),
            Color::Rgb(0x00, 0x9E, 0x73),
            Color::Rgb(0xF0, 0xE4, 0x42),
            Color::Rgb(0x00, 0x72, 0xB2),
            Color::Rgb(0xD5, 0x5E, 0x00),
            Color::Rgb(0xCC, 0x79, 0xA7),
        ];
        let theme = Theme::load(Some("high-contrast"), None, false).unwrap();
        for role in Role::ALL.iter().filter(|r| r.name().starts_with("cell_")) {
            let style = theme.style(*role);
            // Besides Okabe-Ito's, only greys: white for the running block, grey for pending.
            for c in [style.fg, style.bg].into_iter().flatten() {
                let grey = matches!(c, Color::Rgb(r, g, b) if r == g && g == b);
                assert!(okabe_ito.contains(&c) || grey, "{role}: {c}");
            }
        }
        // Killed and survived must differ in more than hue.
        let killed = theme.style(Role::CellKilledStatus);
        let survived = theme.style(Role::CellSurvived);
        assert!(killed.add_modifier.contains(Modifier::BOLD));
        assert!(!survived.add_modifier.contains(Modifier::BOLD));
    }

    #[test]
    fn a_user_file_overriding_one_role_keeps_the_others_from_its_base() {
        let theme = load_user(
            "mine",
            "base = \"light\"\nselected = { bg = \"#123456\" }\n",
        )
        .unwrap();
        let light = Theme::load(Some("light"), None, false).unwrap();
        assert_eq!(theme.name(), "mine");
        assert_eq!(
            theme.style(Role::Selected),
            Style::default().bg(Color::Rgb(0x12, 0x34, 0x56))
        );
        for &role in Role::ALL.iter().filter(|&&r| r != Role::Selected) {
            assert_eq!(theme.style(role), light.style(role), "{role}");
        }
    }

    #[test]
    fn a_user_file_without_base_starts_from_dark_and_may_replace_a_builtin() {
        let dark = Theme::load(Some("dark"), None, false).unwrap();
        let theme = load_user("dark", "[cell_survived]\nfg = 196\nbold = true\n").unwrap();
        assert_eq!(
            theme.style(Role::CellSurvived),
            Style::default()
                .fg(Color::Indexed(196))
                .add_modifier(Modifier::BOLD)
        );
        assert_eq!(
            theme.style(Role::CellKilledLog),
            dark.style(Role::CellKilledLog)
        );
    }

    #[test]
    fn colours_can_be_names_hex_or_indexes() {
        let theme = load_user(
            "colours",
            "text = { fg = \"light_blue\", bg = \"42\" }\ndim = { fg = 0x10, bg = \"reset\" }\n",
        )
        .unwrap();
        assert_eq!(
            theme.style(Role::Text),
            Style::default().fg(Color::LightBlue).bg(Color::Indexed(42))
        );
        assert_eq!(
            theme.style(Role::Dim),
            Style::default().fg(Color::Indexed(16)).bg(Color::Reset)
        );
    }

    #[test]
    fn no_color_has_no_colours_but_keeps_the_selection_visible() {
        for (name, _) in BUILTIN {
            let theme = Theme::load(Some(name), None, true).unwrap();
            for &role in Role::ALL {
                let style = theme.style(role);
                assert_eq!((style.fg, style.bg), (None, None), "{name} {role}");
            }
            assert!(
                theme
                    .style(Role::Selected)
                    .add_modifier
                    .contains(Modifier::REVERSED)
            );
            let reversed: Vec<Role> = Role::ALL
                .iter()
                .copied()
                .filter(|&r| theme.style(r).add_modifier.contains(Modifier::REVERSED))
                .collect();
            assert_eq!(reversed, [Role::Selected]);
        }
        let (dir, _) = user_theme("mine", "text = { fg = \"red\" }\n");
        let theme = Theme::load(Some("mine"), Some(dir.path()), true).unwrap();
        assert_eq!(theme.style(Role::Text), Style::default());
    }

    #[test]
    fn an_unknown_role_names_file_line_key_and_the_roles() {
        let (dir, path) = user_theme("mine", "# mine\nbase = \"dark\"\n\ncel_killed = {}\n");
        let err = Theme::load(Some("mine"), Some(dir.path()), false).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("{} line 4, column 1:", path.display())),
            "{msg}"
        );
        assert!(msg.contains("unknown role `cel_killed`"), "{msg}");
        assert!(msg.contains("roles are: text, dim, title"), "{msg}");
        assert!(msg.contains("cell_killed_status"), "{msg}");
    }

    #[test]
    fn a_bad_colour_names_file_line_and_key() {
        let (dir, path) = user_theme(
            "mine",
            "text = {}\n\n[selected]\nbold = true\n\n\nfg = \"#12345\"\n",
        );
        let err = Theme::load(Some("mine"), Some(dir.path()), false).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} line 7, column 6, key `selected.fg`: `#12345` is not a colour; use a name (red, light_blue, ...), #rrggbb or 0-255",
                path.display()
            )
        );
        let err = load_user("mine", "dim = { bg = 256 }\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("line 1, column 14, key `dim.bg`: `256` is not a colour")
        );
    }

    #[test]
    fn other_bad_values_name_the_key() {
        let cases = [
            (
                "text = \"red\"\n",
                "line 1, column 8, key `text`: `red` is not a style",
            ),
            (
                "text = { colour = \"red\" }\n",
                "line 1, column 10, key `text.colour`: `colour` is not part of a style",
            ),
            (
                "\ntext = { bold = \"yes\" }\n",
                "line 2, column 17, key `text.bold`: `yes` is not true or false",
            ),
            (
                "base = \"sepia\"\n",
                "line 1, column 8, key `base`: `sepia` is not a built-in theme; use one of dark, light, high-contrast",
            ),
        ];
        for (text, expected) in cases {
            let msg = load_user("mine", text).unwrap_err().to_string();
            assert!(msg.contains(expected), "{msg}");
        }
    }

    #[test]
    fn bad_toml_syntax_names_file_and_line() {
        let (dir, path) = user_theme("mine", "text = {}\ndim = { fg = \"gray\"\n");
        let err = Theme::load(Some("mine"), Some(dir.path()), false).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, ThemeError::File(TomlFileError::Syntax { line: 2, .. })),
            "{msg}"
        );
        assert!(
            msg.starts_with(&format!("{} line 2, column", path.display())),
            "{msg}"
        );
        assert!(msg.ends_with("fix the TOML syntax there"), "{msg}");
    }

    #[test]
    fn an_unknown_theme_lists_the_available_ones() {
        let (dir, _) = user_theme("solarized", "");
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        let err = Theme::load(Some("monokai"), Some(dir.path()), false).unwrap_err();
        assert!(
            err.to_string().contains(
                "no theme named `monokai`; available themes: dark, high-contrast, light, solarized"
            ),
            "{err}"
        );
        assert_eq!(
            Theme::available(Some(dir.path())),
            ["dark", "high-contrast", "light", "solarized"]
        );
        assert_eq!(Theme::available(None), ["dark", "high-contrast", "light"]);
        // A name is a file in the directory, never a path out of it.
        let err = Theme::load(Some("../solarized"), Some(dir.path()), false).unwrap_err();
        assert!(matches!(err, ThemeError::UnknownTheme { .. }), "{err}");
    }

    #[test]
    fn a_missing_override_directory_holds_no_themes() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nowhere");
        assert_eq!(
            Theme::load(Some("light"), Some(&missing), false).unwrap(),
            Theme::load(Some("light"), None, false).unwrap()
        );
        assert_eq!(Theme::available(Some(&missing)).len(), BUILTIN.len());
    }
}
