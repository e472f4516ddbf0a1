//! `FocalFunction`: a function or method named as `FILE::QUALNAME` (paper III-A: the localized
//! functions suspected to hold the bug, which mutants are made from).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FocalFunction {
    /// Path relative to the repository root, with `/` separators (`pkg/mod.py`).
    pub file: String,
    /// Dotted qualified name inside the file: `func`, `Class.method`, `outer.inner`.
    pub qualname: String,
}

impl fmt::Display for FocalFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}::{}", self.file, self.qualname)
    }
}

#[derive(Debug, thiserror::Error)]
#[error(
    "`{0}` is not a focal function name: write FILE::QUALNAME, for example `pkg/mod.py::Class.method` or `pkg/mod.py::func`"
)]
pub struct FocalParseError(pub String);

impl FromStr for FocalFunction {
    type Err = FocalParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (file, qualname) = s
            .split_once("::")
            .ok_or_else(|| FocalParseError(s.into()))?;
        let file = file.trim().trim_start_matches("./").replace('\\', "/");
        let qualname = qualname.trim();
        let valid_name = !qualname.is_empty()
            && qualname
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
        // The file must stay inside the repository: mutants are written to working copies by
        // this path.
        let escapes = file.starts_with('/') || file.split('/').any(|c| c == "..");
        if file.is_empty() || !file.ends_with(".py") || !valid_name || escapes {
            return Err(FocalParseError(s.into()));
        }
        Ok(Self {
            file,
            qualname: qualname.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_displays() {
        let f: FocalFunction = "pkg/mod.py::Class.method".parse().unwrap();
        assert_eq!(f.file, "pkg/mod.py");
        assert_eq!(f.qualname, "Class.method");
        assert_eq!(f.to_string(), "pkg/mod.py::Class.method");
        assert!("pkg/mod.py".parse::<FocalFunction>().is_err());
        assert!("pkg/mod.py::".parse::<FocalFunction>().is_err());
        assert!("pkg/mod.txt::f".parse::<FocalFunction>().is_err());
        assert!("pkg/mod.py::a..b".parse::<FocalFunction>().is_err());
        assert!("../other/mod.py::f".parse::<FocalFunction>().is_err());
        assert!("/etc/mod.py::f".parse::<FocalFunction>().is_err());
    }
}
