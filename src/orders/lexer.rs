//! The lexer: one line of order text into tokens, each with a span
//! (1-based line and column in characters, length in characters).
//!
//! Words may hold letters, digits, apostrophes, dots and inner hyphens
//! (`Schleswig-Holstein`, `St.`); a hyphen with a space on either side, or
//! `->`, `=>`, `→`, is an arrow. `#` starts a comment (the caller cuts it).

use crate::diagnostic::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A word (keyword, name, roman numeral, abbreviation).
    Word,
    /// Only digits; the value, or `None` when too large.
    Number(Option<u32>),
    /// `->`, `=>`, `→` or a free-standing `-`.
    Arrow,
    Comma,
    Colon,
    /// `+` or `&`, joining units or items.
    Plus,
    /// Any other character (kept so that errors can point at it).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: Tok,
    pub text: &'a str,
    pub span: Span,
}

impl Token<'_> {
    /// Is this the word `kw` (ASCII case-insensitive)?
    pub fn is(&self, kw: &str) -> bool {
        self.kind == Tok::Word && self.text.eq_ignore_ascii_case(kw)
    }
    pub fn is_sep(&self) -> bool {
        matches!(self.kind, Tok::Arrow | Tok::Comma | Tok::Colon | Tok::Plus)
    }
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '\'' || c == '’' || c == '.' || c == '_'
}

/// Split one line (without its newline, comment already cut) into tokens.
///
/// The line is read through one iterator of characters, and every turn of
/// the loop takes at least one character off it: a token's end is where the
/// iterator stopped, never a counter stepped by hand, so no line (and no
/// slip in these lines) can keep the lexer on the same character.
pub fn lex(line: &str, line_no: usize) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let n = line.chars().count();
    // (column from 0, byte offset, character)
    let mut rest = line
        .char_indices()
        .enumerate()
        .map(|(col, (byte, c))| (col, byte, c))
        .peekable();
    while let Some((col, byte, c)) = rest.next() {
        if c.is_whitespace() || c.is_control() {
            continue;
        }
        let kind = if c.is_alphanumeric() {
            let mut prev = c;
            loop {
                let mut ahead = rest.clone().map(|(_, _, d)| d);
                let in_word = match ahead.next() {
                    Some(d) if word_char(d) => true,
                    // An inner hyphen (`Schleswig-Holstein`).
                    Some('-') => prev.is_alphanumeric() && ahead.next().is_some_and(char::is_alphanumeric),
                    _ => false,
                };
                match rest.next_if(|_| in_word) {
                    Some((_, _, d)) => prev = d,
                    None => break,
                }
            }
            let (_, end) = next_at(&mut rest, n, line.len());
            if line[byte..end].bytes().all(|b| b.is_ascii_digit()) {
                Tok::Number(line[byte..end].parse::<u32>().ok())
            } else {
                Tok::Word
            }
        } else {
            match c {
                '-' | '=' if rest.next_if(|&(_, _, d)| d == '>').is_some() => Tok::Arrow,
                '-' | '–' | '—' | '→' => {
                    // Dashes in a row (`--`) are still one arrow.
                    while rest.next_if(|&(_, _, d)| matches!(d, '-' | '–' | '—')).is_some() {}
                    rest.next_if(|&(_, _, d)| d == '>');
                    Tok::Arrow
                }
                ',' | ';' => Tok::Comma,
                ':' => Tok::Colon,
                '+' | '&' => Tok::Plus,
                _ => Tok::Other,
            }
        };
        let (end_col, end) = next_at(&mut rest, n, line.len());
        out.push(Token {
            kind,
            text: &line[byte..end],
            span: Span::new(line_no, col + 1, end_col - col),
        });
    }
    out
}

/// The column and byte offset of the next character, or the line's end.
fn next_at<I>(rest: &mut std::iter::Peekable<I>, chars: usize, bytes: usize) -> (usize, usize)
where
    I: Iterator<Item = (usize, usize, char)>,
{
    rest.peek().map_or((chars, bytes), |&(col, byte, _)| (col, byte))
}

/// Parse a roman numeral (I to XXXIX) as corps and squadron numbers are
/// printed on the mats (`I Corps`).
pub fn roman(word: &str) -> Option<u32> {
    let w = word.to_ascii_uppercase();
    if w.is_empty() || !w.bytes().all(|b| matches!(b, b'I' | b'V' | b'X')) {
        return None;
    }
    let val = |b: u8| match b {
        b'I' => 1,
        b'V' => 5,
        _ => 10,
    };
    let bytes = w.as_bytes();
    let mut total: i64 = 0;
    for (k, &b) in bytes.iter().enumerate() {
        let v = val(b);
        if bytes.get(k + 1).is_some_and(|&nx| val(nx) > v) {
            total -= v;
        } else {
            total += v;
        }
    }
    // Reject non-canonical forms such as IIII or VX by round-tripping.
    let n = u32::try_from(total).ok().filter(|n| (1..40).contains(n))?;
    (to_roman(n) == w).then_some(n)
}

pub fn to_roman(mut n: u32) -> String {
    let mut s = String::new();
    for (v, r) in [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")] {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str) -> Vec<(Tok, &str, usize, usize)> {
        lex(line, 1)
            .into_iter()
            .map(|t| (t.kind, t.text, t.span.col, t.span.len))
            .collect()
    }

    #[test]
    fn words_numbers_and_arrows_carry_columns() {
        assert_eq!(
            kinds("MOVE corps 3 -> Bavaria"),
            vec![
                (Tok::Word, "MOVE", 1, 4),
                (Tok::Word, "corps", 6, 5),
                (Tok::Number(Some(3)), "3", 12, 1),
                (Tok::Arrow, "->", 14, 2),
                (Tok::Word, "Bavaria", 17, 7),
            ]
        );
    }

    #[test]
    fn separators_have_kinds_of_their_own() {
        let got: Vec<Tok> = kinds("a: b + c & d; e, f = g").into_iter().map(|t| t.0).collect();
        use Tok::*;
        assert_eq!(
            got,
            [
                Word, Colon, Word, Plus, Word, Plus, Word, Comma, Word, Comma, Word, Other, Word
            ]
        );
    }

    #[test]
    fn inner_hyphens_stay_in_words_free_ones_are_arrows() {
        let t = kinds("Schleswig-Holstein - Hanover");
        assert_eq!(t[0].1, "Schleswig-Holstein");
        assert_eq!(t[1].0, Tok::Arrow);
        assert_eq!(kinds("a → b")[1].0, Tok::Arrow);
        // A hyphen joins only letters or digits on both of its sides.
        let texts = |line| kinds(line).into_iter().map(|t| t.1).collect::<Vec<_>>();
        assert_eq!(texts("3->Bavaria"), ["3", "->", "Bavaria"]);
        assert_eq!(texts("St.-Cloud"), ["St.", "-", "Cloud"]);
        assert_eq!(texts("a--b => c"), ["a", "--", "b", "=>", "c"]);
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let t = kinds("Württemberg, Zürich");
        assert_eq!(t[1], (Tok::Comma, ",", 12, 1));
        assert_eq!(t[2].2, 14);
    }

    #[test]
    fn roman_numerals_are_strict() {
        assert_eq!(roman("I"), Some(1));
        assert_eq!(roman("iv"), Some(4));
        assert_eq!(roman("XIV"), Some(14));
        assert_eq!(roman("IIII"), None);
        assert_eq!(roman("VX"), None);
        assert_eq!(roman("Vienna"), None);
    }

    #[test]
    fn huge_numbers_do_not_overflow() {
        assert_eq!(kinds("99999999999")[0].0, Tok::Number(None));
    }
}
