//! Diagnostics: an error or warning with a location, rendered in one place.
//!
//! Every problem a user can cause (a bad order, a broken scenario file, a
//! malformed players file) becomes a [`Diagnostic`] with a [`Span`] into
//! the text it came from. [`Diagnostic::render`] is the only place that
//! turns one into text: the source line, a caret under the problem and the
//! help line. The same plain text goes to the terminal and into mail.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A place in a text: 1-based line and column (in characters), and a
/// length in characters (at least 1 when rendered).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Span {
    pub line: usize,
    pub col: usize,
    pub len: usize,
}

impl Span {
    pub fn new(line: usize, col: usize, len: usize) -> Span {
        Span { line, col, len }
    }
    /// The whole of line `line` (column 1, length 0 = to the end).
    pub fn line(line: usize) -> Span {
        Span { line, col: 1, len: 0 }
    }
}

/// What a diagnostic is about: a closed list of stable codes (shown as
/// `error[unknown-province]`, kept in JSON output and tests).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::VariantArray,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Problem {
    AlreadyOrdered,
    AmbiguousProvince,
    AmbiguousSea,
    BadPhase,
    CannotPay,
    Duplicate,
    DuplicateHeader,
    Illegal,
    NoPower,
    NotAPort,
    NotAnNpc,
    NotApplied,
    NotConnected,
    NotOnMap,
    NotStacked,
    NotThere,
    NotYourUnit,
    NumberTooLarge,
    PoolEmpty,
    #[serde(rename = "self")]
    #[strum(serialize = "self")]
    SelfTarget,
    StalePhase,
    Syntax,
    UnknownArm,
    UnknownCommander,
    UnknownNation,
    UnknownOrder,
    UnknownPower,
    UnknownProvince,
    UnknownSea,
    UnknownUnit,
    WrongGame,
    WrongNation,
    WrongPhase,
    WrongPower,
}

crate::vocabulary::written_names!(Problem, "The stable code as written in diagnostics.");

/// Tools and tests compare a code with its written name.
impl PartialEq<str> for Problem {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Problem {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// "A, B or C": the names a help line offers (places one can reach,
/// names one may have meant).
pub fn or_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A problem with a location and an optional suggestion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A short stable code, e.g. `unknown-province`, for tests and tools.
    pub code: Problem,
    pub message: String,
    pub span: Span,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: Problem, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            help: None,
        }
    }
    pub fn warning(code: Problem, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, span)
        }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Render as plain text against the source it points into:
    ///
    /// ```text
    /// error[unknown-province]: no province 'Viena'
    ///  --> orders.txt:3:15
    ///   |
    /// 3 | MOVE corps 1 Viena
    ///   |              ^^^^^
    ///   = help: did you mean Vienna?
    /// ```
    pub fn render(&self, origin: &str, source: &str) -> String {
        self.render_in(origin, &Lines::new(source))
    }

    /// [`Diagnostic::render`] against a source already indexed by line:
    /// rendering every diagnostic of a long text stays linear in its size.
    pub fn render_in(&self, origin: &str, lines: &Lines<'_>) -> String {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        let mut out = String::new();
        let _ = writeln!(out, "{sev}[{}]: {}", self.code, self.message);
        let line_no = self.span.line;
        let _ = writeln!(out, " --> {origin}:{line_no}:{}", self.span.col);
        if let Some(text) = lines.get(line_no) {
            // Control characters would break the caret alignment and a
            // terminal; show them as '?'.
            let shown: String = text
                .chars()
                .map(|c| if c.is_control() { '?' } else { c })
                .take(200)
                .collect();
            let width = line_no.to_string().len();
            let pad = " ".repeat(width);
            let _ = writeln!(out, "{pad} |");
            let _ = writeln!(out, "{line_no} | {shown}");
            let shown_len = shown.chars().count();
            let col = self.span.col.max(1).min(shown_len + 1);
            let len = if self.span.len == 0 {
                shown_len.saturating_sub(col - 1).max(1)
            } else {
                self.span.len.min((shown_len + 1).saturating_sub(col - 1)).max(1)
            };
            let _ = writeln!(out, "{pad} | {}{}", " ".repeat(col - 1), "^".repeat(len));
        }
        if let Some(help) = &self.help {
            let pad = " ".repeat(line_no.to_string().len());
            let _ = writeln!(out, "{pad} = help: {help}");
        }
        out
    }
}

/// Where each line of a source starts, built once per source, so that a
/// diagnostic finds its line without rescanning the text (`lines().nth()`
/// per diagnostic made a long file of rejected lines quadratic).
pub struct Lines<'a> {
    source: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(source: &'a str) -> Lines<'a> {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        if starts.last() == Some(&source.len()) {
            starts.pop(); // a final newline ends the last line, opens none
        }
        Lines { source, starts }
    }

    /// Line `no` (1-based) as `str::lines` gives it: without its `\n` or
    /// `\r\n`.
    pub fn get(&self, no: usize) -> Option<&'a str> {
        let start = *self.starts.get(no.checked_sub(1)?)?;
        let end = self.starts.get(no).map_or(self.source.len(), |next| next - 1);
        let line = &self.source[start..end];
        let line = line.strip_suffix('\n').unwrap_or(line);
        Some(line.strip_suffix('\r').unwrap_or(line))
    }
}

/// Longest text for which [`suggest`] looks for near misses.
pub const MAX_SUGGEST_LEN: usize = 64;

/// Names close to `wanted` among `candidates`, best first, for "did you
/// mean". Compares case-insensitively by Jaro-Winkler and edit distance.
pub fn suggest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    // Names are short; a long text is no misspelling of one (and would
    // make edit distances slow on a 1 MB line).
    if wanted.chars().count() > MAX_SUGGEST_LEN {
        return Vec::new();
    }
    let w = wanted.to_lowercase();
    // Ranked by edit distance, then by Jaro-Winkler similarity (closer
    // first), then by name, so the likeliest name leads.
    let mut scored: Vec<(usize, std::cmp::Reverse<u64>, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let lc = c.to_lowercase();
            let dist = strsim::levenshtein(&w, &lc);
            // A third of the shorter name may be wrong: a long misspelling
            // is no near miss of a short alias (`Bavria` is not `Bari`).
            let shorter = w.chars().count().min(lc.chars().count());
            let limit = (shorter.max(3) / 3).max(1);
            let similarity = strsim::jaro_winkler(&w, &lc);
            let close = dist <= limit || similarity > 0.92;
            // Similarity as a sortable integer (parts per million).
            close.then_some((dist, std::cmp::Reverse((similarity * 1e6) as u64), c))
        })
        .collect();
    scored.sort();
    let mut out: Vec<&str> = Vec::new();
    for (_, _, c) in scored {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out.truncate(3);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_caret_under_the_span() {
        let d = Diagnostic::error(Problem::UnknownProvince, "no province 'Viena'", Span::new(1, 14, 5))
            .with_help("did you mean Vienna?");
        let text = d.render("orders.txt", "MOVE corps 1 Viena\n");
        assert_eq!(
            text,
            "error[unknown-province]: no province 'Viena'\n --> orders.txt:1:14\n  |\n1 | MOVE corps 1 Viena\n  |              ^^^^^\n  = help: did you mean Vienna?\n"
        );
    }

    #[test]
    fn the_line_index_gives_what_str_lines_gives() {
        for source in ["", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\nc", "x\ny\n\n"] {
            let lines = Lines::new(source);
            let expected: Vec<&str> = source.lines().collect();
            let got: Vec<&str> = (1..=expected.len() + 1).map_while(|n| lines.get(n)).collect();
            assert_eq!(got, expected, "{source:?}");
            assert_eq!(lines.get(0), None);
        }
    }

    #[test]
    fn suggestions_find_near_misses() {
        let names = ["Vienna", "Venetia", "Bavaria", "Prague"];
        assert_eq!(suggest("Viena", names), vec!["Vienna"]);
        assert_eq!(suggest("Bavria", names), vec!["Bavaria"]);
        assert!(suggest("Moscow", names).is_empty());
    }
}

#[cfg(test)]
mod problem_tests {
    use super::*;

    #[test]
    fn a_problem_is_shown_and_stored_by_its_code() {
        crate::vocabulary::assert_names_round_trip::<Problem>();
        assert_eq!(Problem::SelfTarget.to_string(), "self");
        assert_eq!(Problem::UnknownProvince.to_string(), "unknown-province");
        let d = Diagnostic::error(Problem::UnknownProvince, "no province 'Viena'", Span::new(1, 6, 5));
        assert!(
            d.render("orders.txt", "MOVE Viena")
                .starts_with("error[unknown-province]: no province 'Viena'")
        );
    }
}
