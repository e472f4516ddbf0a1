//! Reading a user's TOML file and saying where in it something went wrong: the line and column
//! of a byte offset, TOML syntax errors turned into such a place, and a table's entries in the
//! order they appear. Themes and keymaps both report errors this way, so a person fixing either
//! file reads the same kind of message.

use std::io;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

/// A 1-based line and column (in characters) in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl Place {
    /// The place of byte `offset` in `text` (clamped to the text).
    pub(crate) fn at(text: &str, offset: usize) -> Place {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Place {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

/// What goes wrong with a user's TOML file before its contents are read: themes and keymaps
/// say these alike (their own errors are about what the file says).
#[derive(Debug, thiserror::Error)]
pub enum TomlFileError {
    #[error("cannot read {kind} file {}: {source}", path.display())]
    Read {
        /// `theme` or `keymap`.
        kind: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{file} line {line}, column {column}: {message}; fix the TOML syntax there")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
}

/// `text` parsed as a TOML table, or where (in `file`) it does not parse.
pub(crate) fn parse_table<'i>(
    text: &'i str,
    file: &str,
) -> Result<Spanned<DeTable<'i>>, TomlFileError> {
    DeTable::parse(text).map_err(|e| {
        let (p, message) = syntax_error(&e, text);
        TomlFileError::Syntax {
            file: file.to_string(),
            line: p.line,
            column: p.column,
            message,
        }
    })
}

/// A TOML document that does not parse: where, and toml's own description of what is wrong,
/// with the text it points at when that is short (toml's "duplicate key" names no key).
pub(crate) fn syntax_error(err: &toml::de::Error, text: &str) -> (Place, String) {
    let span = err.span().unwrap_or(0..0);
    let message = err.message().trim();
    let message = match text.get(span.clone()).map(str::trim) {
        Some(s) if !s.is_empty() && !s.contains('\n') && s.chars().count() <= 40 => {
            format!("{message} (at `{s}`)")
        }
        _ => message.to_string(),
    };
    (Place::at(text, span.start), message)
}

/// The file's text, or `None` when it does not exist (most people never write one); any other
/// failure is an error, since silently ignoring the file would hide the user's edit.
pub(crate) fn read_if_present(path: &Path) -> io::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// A table's entries in file order, so that the first mistake reported is the first one a
/// reader meets (the table itself is sorted by key).
pub(crate) fn entries_in_order<'a, 'i>(
    table: &'a DeTable<'i>,
) -> Vec<(&'a Spanned<DeString<'i>>, &'a Spanned<DeValue<'i>>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
}

/// How a value that has the wrong type is named in a message: `a number`, `a list`, ...
pub(crate) fn describe(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(s) => format!("`{s}`"),
        DeValue::Integer(i) => format!("`{i}`"),
        DeValue::Float(f) => format!("`{f}`"),
        DeValue::Boolean(b) => format!("`{b}`"),
        DeValue::Datetime(d) => format!("`{d}`"),
        DeValue::Array(_) => "a list".to_string(),
        DeValue::Table(_) => "a table".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_count_lines_and_characters_from_one() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(Place::at(text, 0), Place { line: 1, column: 1 });
        assert_eq!(Place::at(text, 6), Place { line: 2, column: 1 });
        // After the two-byte é: the third character of line 2.
        assert_eq!(Place::at(text, 9), Place { line: 2, column: 3 });
        assert_eq!(Place::at(text, 999), Place { line: 3, column: 1 });
    }

    #[test]
    fn entries_come_in_file_order() {
        let text = "zed = 1\nalpha = 2\n";
        let table = DeTable::parse(text).unwrap();
        let keys: Vec<&str> = entries_in_order(table.get_ref())
            .into_iter()
            .map(|(k, _)| k.get_ref().as_ref())
            .collect();
        assert_eq!(keys, ["zed", "alpha"]);
    }
}
