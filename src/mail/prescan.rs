//! A tiny pre-scan of an order text for the lines ingest needs before
//! the orders are checked: GAME (routing), POWER and PASSWORD
//! (authentication), PHASE (a stale phase is refused). Everything else is
//! `orders::check`'s job. Quoted lines (`>`) are skipped, and the scan
//! stops at `END`, `SIGNOFF` or a signature separator, like the parser
//! (reply markers such as `On … wrote:` were cut by `mail::parse`). A
//! GAME line counts only when its value is one game id (`Game on!` in a
//! greeting names no game).

/// The routing and authentication lines of an order text, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreHeader {
    pub game: Option<String>,
    pub power: Option<String>,
    pub password: Option<String>,
    pub phase: Option<String>,
}

impl PreHeader {
    /// Whether the text has any header line at all (a text without one is
    /// not an order text).
    pub fn any(&self) -> bool {
        self.game.is_some() || self.power.is_some() || self.password.is_some()
    }
}

/// Scan `text` for its header lines; the first of each kind wins.
pub fn prescan(text: &str) -> PreHeader {
    let mut h = PreHeader::default();
    for raw in text.lines() {
        if raw == "-- " || raw == "--" {
            break;
        }
        let line = raw.trim();
        if line.starts_with('>') {
            continue;
        }
        let mut words = line.splitn(2, |c: char| c.is_whitespace() || c == ':');
        let key = words.next().unwrap_or("").to_ascii_uppercase();
        let value = words
            .next()
            .map(|v| v.trim_start_matches([':', ' ', '\t']).trim().to_string())
            .filter(|v| !v.is_empty());
        let slot = match key.as_str() {
            "END" | "SIGNOFF" => break,
            "GAME" if !value.as_deref().is_some_and(is_game_id) => continue,
            "GAME" => &mut h.game,
            "POWER" => &mut h.power,
            "PASSWORD" => &mut h.password,
            "PHASE" => &mut h.phase,
            _ => continue,
        };
        if slot.is_none() {
            *slot = value;
        }
    }
    h
}

/// Whether `s` looks like a game id: one word of letters, digits, `-`,
/// `_` or `.`.
pub fn is_game_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_header_lines_and_skips_quotes_and_signatures() {
        let t = "> GAME other\n> PASSWORD old\nGame: demo\n  power  France\nPASSWORD  austerlitz \nPHASE 1805-fall-france\nMOVE x\nEND\nGAME later\n";
        let h = prescan(t);
        assert_eq!(h.game.as_deref(), Some("demo"));
        assert_eq!(h.power.as_deref(), Some("France"));
        assert_eq!(h.password.as_deref(), Some("austerlitz"));
        assert_eq!(h.phase.as_deref(), Some("1805-fall-france"));
        let sig = prescan("POWER austria\n-- \nPASSWORD x\n");
        assert_eq!(sig.password, None);
        assert!(sig.any());
        assert!(!prescan("hello\n> GAME x\n").any());
        // A password line with nothing after it is no password.
        assert_eq!(prescan("PASSWORD\n").password, None);
        // A greeting names no game; a PASSWORD after SIGNOFF is ignored.
        let g = prescan("Game on!\nGAME demo\nPOWER x\nSIGNOFF\nPASSWORD late\n");
        assert_eq!(g.game.as_deref(), Some("demo"));
        assert_eq!(g.password, None);
    }
}
