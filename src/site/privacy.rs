//! What of a history entry the public site may carry whole, and what only
//! as a digest; and which outcomes and press are public at all. A leaf:
//! the site's model, the observers' mail (`mail::compose`, `mail::press`)
//! and their tests ask it; nothing here reads a file.
//!
//! The hash chain (docs/dice.md section 6) covers every file of an entry,
//! so the site must name each of them; a file that holds what a power may
//! not see is named by its SHA-256 alone, which lets the chain and the
//! receipts still check without showing the content.

/// How one file of an entry is published.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Publish {
    /// The bytes, as stored.
    Whole,
    /// Only the SHA-256 of the bytes, with why the content is withheld.
    Digest(&'static str),
}

/// Why a state file is withheld while the game runs.
pub const HIDDEN_STATE: &str =
    "the full state holds every power's hidden corps compositions and pools (2.5); published when the game ends";
/// Why the outcomes and the moderator's report are withheld while the game runs.
pub const HIDDEN_OUTCOMES: &str =
    "it holds outcomes only some powers may see; the public ones are on the phase's page; published when the game ends";
/// Why a stored submission is withheld, always.
pub const SUBMISSION: &str = "a stored submission names its sender's address, which stays private";
/// Why an unknown file is withheld.
pub const UNKNOWN: &str = "not a file the site knows to be public";

/// How the file `rel` (a path inside a history entry, `/`-separated) is
/// published, `ended` saying whether the game is over. What the protocol
/// reveals to every player anyway (docs/dice.md sections 5 and 7: the
/// seed, the entropy, the dice log, the orders lock in everyone's phase mail)
/// is whole; anything not known to be public is a digest.
pub fn publish(rel: &str, ended: bool) -> Publish {
    match rel {
        "entry.toml" | "seed" | "abandoned-seed" | "entropy.toml" | "dice.toml" | "lock.toml" | "reason.txt" => {
            Publish::Whole
        }
        "state-before.toml" | "state-after.toml" if ended => Publish::Whole,
        "state-before.toml" | "state-after.toml" => Publish::Digest(HIDDEN_STATE),
        "outcomes.toml" | "report.txt" if ended => Publish::Whole,
        "outcomes.toml" | "report.txt" => Publish::Digest(HIDDEN_OUTCOMES),
        _ if rel.starts_with("orders/") => Publish::Digest(SUBMISSION),
        _ => Publish::Digest(UNKNOWN),
    }
}

/// The outcomes the public may read (the site's pages, the observers'
/// reports): those every power sees.
pub fn public_outcomes(outcomes: &[crate::rules::Outcome]) -> Vec<crate::rules::Outcome> {
    outcomes
        .iter()
        .filter(|o| o.visibility == crate::rules::Visibility::All)
        .cloned()
        .collect()
}

/// Whether a press message is public (the site's press page, the
/// observers' copies): sent to every player but its sender. `others`
/// names every player but the sender; `to` the powers it went to.
pub fn press_is_public<'a>(others: impl IntoIterator<Item = &'a str>, to: &[String]) -> bool {
    let others: std::collections::BTreeSet<&str> = others.into_iter().collect();
    let to: std::collections::BTreeSet<&str> = to.iter().map(String::as_str).collect();
    !others.is_empty() && to == others
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_files_are_digests_until_the_end_and_submissions_always() {
        assert_eq!(publish("dice.toml", false), Publish::Whole);
        assert_eq!(publish("state-after.toml", false), Publish::Digest(HIDDEN_STATE));
        assert_eq!(publish("state-after.toml", true), Publish::Whole);
        assert_eq!(publish("outcomes.toml", false), Publish::Digest(HIDDEN_OUTCOMES));
        assert_eq!(publish("report.txt", true), Publish::Whole);
        assert_eq!(publish("orders/france.toml", true), Publish::Digest(SUBMISSION));
        assert_eq!(publish("notes.txt", true), Publish::Digest(UNKNOWN));
    }
}
