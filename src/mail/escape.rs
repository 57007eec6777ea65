//! Text a sender wrote, shown back to someone (a refusal quoting a line,
//! ENTROPY, a sender's address in a notice): control characters, NUL and
//! bidirectional overrides are written as `\u{..}` escapes, so an echoed
//! line can neither reorder what the reader sees nor smuggle terminal
//! controls; long text is cut.

/// Characters never echoed as themselves: controls (but tab), and the
/// bidirectional marks and overrides that reorder displayed text.
pub fn hidden(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// One line: hidden characters (line breaks included) escaped, at most
/// `max` characters kept (then `…`).
pub fn line(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n >= max {
            out.push('…');
            break;
        }
        if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Several lines: each escaped as [`line`] (no line limit on length
/// beyond `max_line`), at most `max_lines` lines, then a note of how many
/// were left out.
pub fn lines(s: &str, max_lines: usize, max_line: usize) -> String {
    let all: Vec<&str> = s.lines().collect();
    let mut out: Vec<String> = all.iter().take(max_lines).map(|l| line(l, max_line)).collect();
    if all.len() > max_lines {
        out.push(format!("[{} more line(s) not quoted]", all.len() - max_lines));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_are_escaped_and_text_is_cut() {
        assert_eq!(line("a\u{202E}b\0c\x1b[31m", 100), "a\\u{202e}b\\u{0}c\\u{1b}[31m");
        assert_eq!(line("tab\there", 100), "tab\there");
        assert_eq!(line("abcdef", 3), "abc…");
        assert_eq!(line("a\r\nb", 10), "a\\u{d}\\u{a}b");
        let many = (0..250).map(|i| i.to_string()).collect::<Vec<_>>().join("\n");
        let shown = lines(&many, 200, 80);
        assert_eq!(shown.lines().count(), 201);
        assert!(shown.ends_with("[50 more line(s) not quoted]"));
    }
}
