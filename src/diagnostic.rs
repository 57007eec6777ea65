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
    UnknownZone,
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
/// For a list asked many times (a map's names), build a [`SuggestIndex`]
/// once instead: it gives the same answer.
pub fn suggest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    let index = SuggestIndex::new(candidates.iter().copied());
    index.suggest_ids(wanted).into_iter().map(|i| candidates[i]).collect()
}

/// Buckets of the letter signature: a char counts in bucket `c mod 64`.
const SIGNATURE_BUCKETS: usize = 64;

/// How many of each char (by bucket) a lowercased name has. Two names
/// share at most the sum over buckets of the smaller count: an upper
/// bound on the chars they have in common, which bounds both the edit
/// distance (from below) and the Jaro similarity (from above).
type Signature = [u8; SIGNATURE_BUCKETS];

fn signature(lower: &[char]) -> Signature {
    let mut sig = [0u8; SIGNATURE_BUCKETS];
    for &c in lower {
        let b = c as usize % SIGNATURE_BUCKETS;
        sig[b] = sig[b].saturating_add(1);
    }
    sig
}

/// One candidate name, prepared once.
#[derive(Clone, Debug)]
struct Prepared {
    name: String,
    lower: String,
    chars: usize,
    signature: Signature,
}

/// Candidate names prepared once for "did you mean": lowercased, grouped
/// by length, each with its letter signature. A query skips every name
/// that provably cannot be close (too different in length, or sharing too
/// few letters for the edit-distance or Jaro-Winkler test to pass) and
/// scores the rest exactly as [`suggest`] does, so a misspelt word costs a
/// look at the few names of about its length and letters, not an edit
/// distance against every name of the map.
#[derive(Clone, Debug, Default)]
pub struct SuggestIndex {
    entries: Vec<Prepared>,
    /// Char count -> indices into `entries`.
    by_len: std::collections::BTreeMap<usize, Vec<usize>>,
}

impl SuggestIndex {
    /// The index of `candidates`, in their order (an answer names them by
    /// that order's positions).
    pub fn new<'a>(candidates: impl IntoIterator<Item = &'a str>) -> SuggestIndex {
        let mut index = SuggestIndex::default();
        for name in candidates {
            let lower = name.to_lowercase();
            let chars: Vec<char> = lower.chars().collect();
            let i = index.entries.len();
            index.by_len.entry(chars.len()).or_default().push(i);
            index.entries.push(Prepared {
                name: name.to_string(),
                signature: signature(&chars),
                chars: chars.len(),
                lower,
            });
        }
        index
    }

    /// The names close to `wanted`, best first (at most three), as
    /// [`suggest`] defines them.
    pub fn suggest(&self, wanted: &str) -> Vec<&str> {
        self.suggest_ids(wanted)
            .into_iter()
            .map(|i| self.entries[i].name.as_str())
            .collect()
    }

    /// [`SuggestIndex::suggest`] as positions among the candidates.
    pub fn suggest_ids(&self, wanted: &str) -> Vec<usize> {
        // Names are short; a long text is no misspelling of one (and would
        // make edit distances slow on a 1 MB line).
        if wanted.chars().count() > MAX_SUGGEST_LEN {
            return Vec::new();
        }
        let w = wanted.to_lowercase();
        let n = w.chars().count();
        // Ranked by edit distance, then by Jaro-Winkler similarity (closer
        // first), then by name, so the likeliest name leads.
        let mut scored: Vec<(usize, std::cmp::Reverse<u64>, &str, usize)> = Vec::new();
        for i in self.within_reach(&w) {
            let c = &self.entries[i];
            if let Some((dist, similarity)) = closeness(&w, &c.lower, n, c.chars) {
                scored.push((dist, similarity, c.name.as_str(), i));
            }
        }
        scored.sort();
        let mut names: Vec<&str> = Vec::new();
        let mut out: Vec<usize> = Vec::new();
        for (_, _, name, i) in scored {
            if !names.contains(&name) {
                names.push(name);
                out.push(i);
            }
        }
        out.truncate(3);
        out
    }

    /// The candidates that the bounds do not rule out for `lower` (a
    /// lowercased word): of a length within reach, then sharing enough
    /// letters. Only these are scored.
    pub fn within_reach(&self, lower: &str) -> Vec<usize> {
        let w_chars: Vec<char> = lower.chars().collect();
        let n = w_chars.len();
        let w_sig = signature(&w_chars);
        let mut out = Vec::new();
        for (&len, ids) in &self.by_len {
            if !could_be_close(n, len, n.min(len)) {
                continue;
            }
            for &i in ids {
                let c = &self.entries[i];
                let common: usize = w_sig
                    .iter()
                    .zip(&c.signature)
                    .map(|(a, b)| usize::from(*a.min(b)))
                    .sum();
                if could_be_close(n, c.chars, common) {
                    out.push(i);
                }
            }
        }
        out
    }
}

/// The edit-distance allowance between names of `a` and `b` chars: a third
/// of the shorter name may be wrong, so a long misspelling is no near miss
/// of a short alias (`Bavria` is not `Bari`).
fn edit_limit(a: usize, b: usize) -> usize {
    (a.min(b).max(3) / 3).max(1)
}

/// The Jaro-Winkler similarity above which a name is close.
const CLOSE_SIMILARITY: f64 = 0.92;

/// Whether names of `a` and `b` chars sharing at most `common` chars can
/// pass [`closeness`]: false only when neither test can.
fn could_be_close(a: usize, b: usize, common: usize) -> bool {
    // Every edit leaves at most one char of the longer name matched.
    let min_dist = a.max(b).saturating_sub(common);
    if min_dist <= edit_limit(a, b) {
        return true;
    }
    // Jaro is at most (m/a + m/b + 1) / 3 with m matches, and Winkler's
    // prefix bonus lifts j to at most j + 0.4 (1 - j).
    let m = common.min(a).min(b) as f64;
    if m == 0.0 || a == 0 || b == 0 {
        return false;
    }
    let jaro = (m / a as f64 + m / b as f64 + 1.0) / 3.0;
    let winkler = jaro + 0.4 * (1.0 - jaro);
    // A margin for rounding: the bound only has to be no lower than the truth.
    winkler + 1e-9 > CLOSE_SIMILARITY
}

/// The rank of `candidate` for `wanted` (both lowercased, of `n` and `len`
/// chars) when it is close: edit distance, then similarity (parts per
/// million, higher first).
fn closeness(wanted: &str, candidate: &str, n: usize, len: usize) -> Option<(usize, std::cmp::Reverse<u64>)> {
    let dist = strsim::levenshtein(wanted, candidate);
    let similarity = strsim::jaro_winkler(wanted, candidate);
    let close = dist <= edit_limit(n, len) || similarity > CLOSE_SIMILARITY;
    close.then_some((dist, std::cmp::Reverse((similarity * 1e6) as u64)))
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

    /// "Did you mean" as it was computed before the index: every candidate
    /// scored. The index must give exactly this.
    fn suggest_by_scan<'a>(wanted: &str, candidates: &[&'a str]) -> Vec<&'a str> {
        if wanted.chars().count() > MAX_SUGGEST_LEN {
            return Vec::new();
        }
        let w = wanted.to_lowercase();
        let mut scored: Vec<(usize, std::cmp::Reverse<u64>, &str)> = candidates
            .iter()
            .filter_map(|&c| {
                let lc = c.to_lowercase();
                let dist = strsim::levenshtein(&w, &lc);
                let shorter = w.chars().count().min(lc.chars().count());
                let limit = (shorter.max(3) / 3).max(1);
                let similarity = strsim::jaro_winkler(&w, &lc);
                let close = dist <= limit || similarity > 0.92;
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

    /// Misspellings of `name`: each char dropped, doubled, replaced and
    /// swapped with the next, a prefix and a suffix, and the name run twice.
    fn misspellings(name: &str) -> Vec<String> {
        let chars: Vec<char> = name.chars().collect();
        let mut out = vec![
            name.to_uppercase(),
            format!("{name}{name}"),
            format!("x{name}"),
            format!("{name}s"),
        ];
        for i in 0..chars.len() {
            let mut v = chars.clone();
            v.remove(i);
            out.push(v.iter().collect());
            let mut v = chars.clone();
            v.insert(i, chars[i]);
            out.push(v.iter().collect());
            let mut v = chars.clone();
            v[i] = if chars[i] == 'q' { 'z' } else { 'q' };
            out.push(v.iter().collect());
            if i + 1 < chars.len() {
                let mut v = chars.clone();
                v.swap(i, i + 1);
                out.push(v.iter().collect());
            }
            out.push(chars[..=i].iter().collect());
            out.push(chars[i..].iter().collect());
        }
        out
    }

    #[test]
    fn the_index_suggests_exactly_what_scoring_every_name_does() {
        let scenario = crate::scenario::Scenario::embedded("1805").expect("the 1805 scenario");
        let mut names: Vec<String> = Vec::new();
        for p in &scenario.map.provinces {
            names.push(p.name.clone());
            names.extend(p.aliases.iter().cloned());
        }
        for z in &scenario.map.seas {
            names.push(z.name.clone());
        }
        names.push("Württemberg".into());
        names.push("Ölsnitz".into());
        let candidates: Vec<&str> = names.iter().map(String::as_str).collect();
        let index = SuggestIndex::new(candidates.iter().copied());
        let mut wanted: Vec<String> = ["", "a", "zz", "qqqqqqqq", "vien", "Wurtembreg", "olsnitz", "Sea", "de"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // Every thirteenth name's misspellings: enough lengths and letters to
        // cross each bound of the index, and quick in a debug build.
        for n in names.iter().step_by(13) {
            wanted.extend(misspellings(n));
        }
        let mut suggested = 0;
        for w in &wanted {
            let by_index: Vec<&str> = index.suggest_ids(w).into_iter().map(|i| candidates[i]).collect();
            assert_eq!(by_index, suggest_by_scan(w, &candidates), "for {w:?}");
            suggested += usize::from(!by_index.is_empty());
        }
        // The comparison means something only if most words get suggestions.
        assert!(suggested * 2 > wanted.len(), "{suggested} of {}", wanted.len());
        // What a player reads: the map turns the names suggested (an alias
        // among them) into the province's own name.
        match scenario.map.resolve_province("Wurtembreg") {
            Err(crate::map::NameError::Unknown { suggestions }) => {
                assert_eq!(suggestions, ["Württemberg"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_misspelt_word_is_scored_against_a_few_names_only() {
        let scenario = crate::scenario::Scenario::embedded("1805").expect("the 1805 scenario");
        let names: Vec<&str> = scenario.map.provinces.iter().map(|p| p.name.as_str()).collect();
        let index = SuggestIndex::new(names.iter().copied());
        for wanted in ["viena", "bavria", "wurtemberg", "constantinopel", "x"] {
            let reach = index.within_reach(wanted);
            assert!(
                reach.len() * 10 < names.len(),
                "{wanted}: {} of {} names scored",
                reach.len(),
                names.len()
            );
        }
        // Within reach is a superset of what is suggested.
        let reach = index.within_reach("viena");
        assert!(index.suggest_ids("viena").iter().all(|i| reach.contains(i)));
        assert_eq!(index.suggest("viena"), ["Vienna"]);
        // The bounds let the exact answer through at their edges: one edit
        // in three letters, and a long shared prefix.
        let small = SuggestIndex::new(["Ulm", "Berg", "Hesse-Darmstadt"]);
        assert_eq!(small.suggest("Ul"), ["Ulm"]);
        assert_eq!(small.suggest("Bxrg"), ["Berg"]);
        assert_eq!(small.suggest("hesse-darmstad"), ["Hesse-Darmstadt"]);
        assert!(small.suggest("Bxxg").is_empty());
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
