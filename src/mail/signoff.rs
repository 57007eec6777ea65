//! Sign-offs: the lines people and their phones put after what they
//! wrote ("Thanks, Bob", "Sent from my iPhone", "Get Outlook for
//! Android", a name alone). They are no orders: ingest blanks them (the
//! order checker's line numbers stay right) and the acknowledgement says
//! each was ignored, as a note, not as an error.
//!
//! Only the end of the text is read: the lines after the last line that
//! is something else, each of them a sign-off by its shape (a client
//! footer, a closing word with or without a name, or a name alone of at
//! most [`NAME_WORDS`] capitalised words). A name alone counts only as
//! the last line, or after a closing line. What the checker would accept
//! is never a sign-off: the caller asks it first.

/// Most words of a name alone (`Jean-Baptiste de Marbot`).
pub const NAME_WORDS: usize = 3;

/// How a mail client signs a message it sent, as the line starts, lower
/// case (English, French, German, Spanish and Italian clients).
const FOOTERS: &[&str] = &[
    "sent from my ",
    "sent from outlook",
    "sent from mail for windows",
    "sent from yahoo mail",
    "sent via ",
    "get outlook for ",
    "envoyé de mon ",
    "envoyé depuis ",
    "von meinem ",
    "gesendet von ",
    "enviado desde mi ",
    "inviato da ",
];

/// Closing words, lower case, as the line starts (a name may follow,
/// after a comma or a space).
const CLOSINGS: &[&str] = &[
    "thanks",
    "thank you",
    "thx",
    "cheers",
    "regards",
    "best regards",
    "kind regards",
    "warm regards",
    "best wishes",
    "best",
    "yours",
    "yours truly",
    "sincerely",
    "all the best",
    "merci",
    "cordialement",
    "amitiés",
    "bien à vous",
    "à bientôt",
    "grüße",
    "viele grüße",
    "mit freundlichen grüßen",
    "saludos",
    "vive l'empereur",
];

/// What kind of sign-off a line is, if it is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Footer,
    Closing,
    Name,
}

fn kind(line: &str) -> Option<Kind> {
    let t = line.trim().trim_end_matches(['!', '.', ',']);
    let low = t.to_lowercase();
    if FOOTERS.iter().any(|f| low.starts_with(f)) {
        return Some(Kind::Footer);
    }
    for c in CLOSINGS {
        if let Some(rest) = low.strip_prefix(c) {
            let rest = rest.trim_start_matches([',', ' ', '!', '.', '-']).trim();
            let after_word = rest.len() < low.len() - c.len() || rest.is_empty();
            let name = t.get(t.len().saturating_sub(rest.len())..).unwrap_or("");
            if rest.is_empty() || (after_word && is_name(name)) {
                return Some(Kind::Closing);
            }
        }
    }
    is_name(t).then_some(Kind::Name)
}

/// A name alone: one to [`NAME_WORDS`] words of letters (with `-`, `'`
/// or `.` inside), each capitalised but a particle (`de`, `von`…), none
/// all capitals (orders and their keywords are usually in capitals).
fn is_name(s: &str) -> bool {
    const PARTICLES: &[&str] = &["de", "du", "la", "le", "von", "van", "der", "den", "da", "di", "y"];
    let words: Vec<&str> = s.split_whitespace().collect();
    !words.is_empty()
        && words.len() <= NAME_WORDS
        && words.iter().enumerate().all(|(i, w)| {
            w.chars().all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '.'))
                && w.chars().any(char::is_lowercase)
                && (w.chars().next().is_some_and(char::is_uppercase) || (i > 0 && PARTICLES.contains(w)))
        })
}

/// The sign-off lines at the end of `text` (1-based numbers), among the
/// lines `candidate` allows (the ones the checker did not take). Blank
/// lines and quoted (`>`) lines between them are skipped.
pub fn find(text: &str, candidate: impl Fn(usize) -> bool) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    // The checker reads up to END, SIGNOFF or a signature separator.
    let stop = lines
        .iter()
        .position(|l| {
            let first = l.split_whitespace().next().unwrap_or("").to_ascii_uppercase();
            *l == "-- " || l.trim() == "--" || first == "END" || first == "SIGNOFF"
        })
        .unwrap_or(lines.len());
    let mut found = Vec::new();
    for (i, l) in lines[..stop].iter().enumerate().rev() {
        let t = l.trim();
        if t.is_empty() || t.starts_with('>') {
            continue;
        }
        let no = i + 1;
        let ok = candidate(no)
            && match kind(t) {
                Some(Kind::Footer | Kind::Closing) => true,
                // A name alone: the last line, or just above a found one.
                Some(Kind::Name) => found.is_empty() || found.last().is_some_and(|f| closing_or_footer(lines[f - 1])),
                None => false,
            };
        if !ok {
            break;
        }
        found.push(no);
    }
    found.reverse();
    found
}

fn closing_or_footer(line: &str) -> bool {
    matches!(kind(line), Some(Kind::Footer | Kind::Closing))
}

/// `text` with the given lines blanked (their numbers stay).
pub fn blank(text: &str, lines: &[usize]) -> String {
    let mut out: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| if lines.contains(&(i + 1)) { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_offs_are_read_from_the_end_only() {
        let t = "MOVE x\nThanks, Bob\n\nSent from my iPhone\n";
        assert_eq!(find(t, |_| true), vec![2, 4]);
        assert_eq!(find("MOVE x\nGet Outlook for Android\n", |_| true), vec![2]);
        assert_eq!(find("MOVE x\nBob\n", |_| true), vec![2]);
        assert_eq!(find("MOVE x\nCheers\nJean-Baptiste de Marbot\n", |_| true), vec![2, 3]);
        // A name above another name is no sign-off; nor is a line the
        // checker took, nor one in capitals, nor prose in the middle.
        assert_eq!(find("MOVE x\nBob\nAlice\n", |_| true), vec![3]);
        assert_eq!(find("MOVE x\nThanks\n", |l| l != 2), Vec::<usize>::new());
        assert_eq!(find("MOVE x\nVIENNA\n", |_| true), Vec::<usize>::new());
        assert_eq!(find("Thanks\nMOVE x\n", |l| l == 1), Vec::<usize>::new());
        assert_eq!(
            find("MOVE x\nThanks for the alliance, it helps a lot\n", |_| true),
            Vec::<usize>::new()
        );
        assert_eq!(find("MOVE x\nThanksgiving\n", |_| true), vec![2]);
        assert_eq!(find("MOVE x\nThanksgiving attack\n", |_| true), Vec::<usize>::new());
        assert_eq!(blank("a\nb\nc\n", &[2]), "a\n\nc\n");
        // What follows END is not read.
        assert_eq!(find("MOVE x\nThanks, Bob\nEND\nBob\n", |_| true), vec![2]);
    }

    #[test]
    fn a_particle_is_a_name_only_after_its_first_word_and_up_to_three_words() {
        assert_eq!(find("MOVE x\nJean de Marbot\n", |_| true), vec![2]);
        // A line that begins with a particle is not a name alone.
        assert_eq!(find("MOVE x\nde Marbot\n", |_| true), Vec::<usize>::new());
        assert_eq!(find("MOVE x\nJean Baptiste Marbot\n", |_| true), vec![2]);
        assert_eq!(find("MOVE x\nJean Baptiste de Marbot\n", |_| true), Vec::<usize>::new());
    }
}
