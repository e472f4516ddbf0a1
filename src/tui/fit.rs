//! Text fitted to a column: cut to a width and marked with `~` where it was cut, the one way
//! every screen says "there is more".

/// `s` in at most `width` characters: whole, or its first `width - 1` and `~`.
pub fn cut(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
        out.push('~');
        out
    }
}

/// `s` in exactly `width` characters: [`cut`], then padded with spaces (a table's column).
pub fn padded(s: &str, width: usize) -> String {
    format!("{:<width$}", cut(s, width))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cut_with_a_mark_and_padded_to_its_column() {
        assert_eq!(cut("abcdef", 4), "abc~");
        assert_eq!(cut("abcd", 4), "abcd");
        assert_eq!(cut("ééééé", 3), "éé~");
        assert_eq!(padded("ab", 4), "ab  ");
        assert_eq!(padded("abcdef", 4), "abc~");
    }
}
