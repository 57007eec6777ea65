//! `empereur demo`: the whole product in a few seconds and nothing but
//! the binary. Creates a game from the embedded 1805 scenario with seven
//! example players, then plays the Fall 1805 season through `run` on a
//! simulated clock: example order mails (embedded from `games/demo/mail/`)
//! arrive when their phase is open, phases resolve early when everyone is
//! in or late after grace, reports go out through the file transport.
//! Ends with `verify` and says where everything is.
#![allow(clippy::disallowed_methods)] // adapter

use super::new::{NewOptions, create_from};
use super::run::run_game;
use crate::store::{self, GameDir, history};
use anyhow::{Result, bail};
use chrono::{DateTime, Duration, Utc};
use include_dir::{Dir, include_dir};
use std::path::PathBuf;

/// The demo's players, embedded so the demo needs nothing but the binary.
pub const DEMO_PLAYERS: &str = include_str!("../../games/demo/players.toml");

/// Example order mails, named `<phase-id>-<power>.eml`.
static DEMO_MAIL: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/games/demo/mail");

/// How many phases the demo plays: Turn Start, seven Player Turns, Build.
const DEMO_PHASES: usize = 9;

/// What the demo played, as lines for the user (where everything is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demo {
    pub lines: Vec<String>,
}

impl std::fmt::Display for Demo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.lines.iter().try_for_each(|l| writeln!(f, "{l}"))
    }
}

impl super::Summary for Demo {}

pub fn run(out: Option<PathBuf>) -> Result<Demo> {
    let dir = match out {
        Some(d) => d,
        None => tempfile::Builder::new().prefix("empereur-demo-").tempdir()?.keep(),
    };
    Ok(Demo {
        lines: play(&dir, DEMO_PHASES)?,
    })
}

/// The demo's start on the simulated clock (the game's own dates are in
/// the calendar of 1805; these are the players' days).
fn start() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-05T09:00:00Z")
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default()
}

/// An example mail as its player sends it on the simulated clock: its
/// `Date` header is the time it arrives. A mail that says no PHASE is
/// taken for the phase open when it was written (a mail dated before the
/// phase opened is an old one sent again), so every example must be dated
/// when the player writes it, not when the file was made.
fn sent_at(mail: &[u8], at: DateTime<Utc>) -> Vec<u8> {
    // The header ends at the first empty line, LF or CRLF; the body is
    // kept byte for byte, and the header's own line ends are kept.
    let end = (0..mail.len())
        .find_map(|i| {
            let rest = &mail[i..];
            if rest.starts_with(b"\n\n") {
                Some((i + 1, "\n"))
            } else if rest.starts_with(b"\r\n\r\n") {
                Some((i + 2, "\r\n"))
            } else {
                None
            }
        })
        .unwrap_or((mail.len(), "\n"));
    let (head, body) = mail.split_at(end.0);
    let date = format!("Date: {}{}", at.to_rfc2822(), end.1);
    let mut out = Vec::with_capacity(mail.len() + date.len());
    let mut dated = false;
    for line in head.split_inclusive(|&b| b == b'\n') {
        if line.len() >= 5 && line[..5].eq_ignore_ascii_case(b"date:") {
            out.extend_from_slice(date.as_bytes());
            dated = true;
        } else {
            out.extend_from_slice(line);
        }
    }
    if !dated {
        out.extend_from_slice(date.as_bytes());
    }
    out.extend_from_slice(body);
    out
}

/// Create the demo game under `out` and play `phases` phases; returns the
/// lines to print.
pub fn play(out: &std::path::Path, phases: usize) -> Result<Vec<String>> {
    let players = store::players::parse("games/demo/players.toml", DEMO_PLAYERS).map_err(anyhow::Error::msg)?;
    let opts = NewOptions {
        dir: out.join("game"),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: vec![],
        id: Some("demo".into()),
        house_seating: false,
    };
    create_from(&opts, players)?;
    let game = GameDir::new(&opts.dir);
    let mut lines = vec![format!("Created the demo game in {}", game.root.display())];
    let mut now = start();
    run_game(&game.root, &[], now)?; // opens the first phase: its mail goes out
    let mut mails = 0;
    for _ in 0..phases {
        let state = game.load_state()?;
        if state.over.is_some() {
            break;
        }
        let phase = state.phase.to_string();
        let incoming: Vec<Vec<u8>> = DEMO_MAIL
            .files()
            .filter(|f| {
                f.path()
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&format!("{phase}-")))
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|f| sent_at(f.contents(), now + Duration::hours(2)))
            .collect();
        mails += incoming.len();
        now += Duration::hours(2);
        let mut r = run_game(&game.root, &incoming, now)?;
        // Let the clock run, half a day at a time, until the phase resolves:
        // early once the change-of-mind delay has passed, or after grace.
        let mut waited = 0;
        while r.resolved.is_empty() {
            waited += 1;
            if waited > 40 {
                bail!("phase {phase} did not resolve in 20 simulated days");
            }
            now += Duration::hours(12);
            r = run_game(&game.root, &[], now)?;
        }
        let how = if r.late.is_empty() {
            "everyone in, resolved early".to_string()
        } else {
            format!(
                // "In" is a power's orders for the phase: one whose mail
                // was refused, or set only standing orders, is not in.
                "resolved after grace; not in: {} (standing orders and defaults applied)",
                r.late.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
            )
        };
        lines.push(format!("  {phase:<24} {} mail(s) in; {how}", incoming.len()));
        for l in headline(&game, &r.resolved[0])? {
            lines.push(format!("      {l}"));
        }
    }
    let report = super::verify::verify_game(&game, &Default::default())?;
    let state = game.load_state()?;
    let config = game.load_config()?;
    let scenario = game.load_scenario(&config)?;
    lines.push(String::new());
    lines.push(format!(
        "Played {} phase(s) from {} example mail(s); now open: {}",
        history::list(&game)?.len(),
        mails,
        state.phase
    ));
    lines.push(format!(
        "verify: {}",
        if report.ok() {
            "ok, every die and the whole hash chain check out"
        } else {
            "MISMATCH"
        }
    ));
    for p in &report.problems {
        lines.push(format!("  {p:?}"));
    }
    lines.push(String::new());
    // The powers and their relations; `empereur show` has the units.
    let full = super::show::to_text(&scenario, &state, None);
    lines.extend(
        full.lines()
            .take_while(|l| !l.starts_with("Corps:"))
            .map(str::to_string),
    );
    let files = match &config.mail.transport {
        crate::store::config::Transport::File { dir: Some(d) } => game.root.join(d),
        _ => game.root.join("mail").join("files"),
    };
    lines.push(format!("Mail sent (file transport): {}", files.display()));
    let pictures = write_pictures(&game, &out.join("pictures"))?;
    lines.push(format!(
        "Map pictures mailed ({}):    {}",
        pictures.len(),
        out.join("pictures").display()
    ));
    for p in pictures
        .iter()
        .filter(|p| p.to_string_lossy().contains("report") && p.to_string_lossy().ends_with("-france.png"))
    {
        lines.push(format!("  {}", p.display()));
    }
    lines.push(format!("Mail received (archive):    {}", game.inbox().display()));
    lines.push(format!("History, reports, dice:     {}", game.history().display()));
    lines.push(format!("Journal:                    {}", game.journal().display()));
    lines.push(format!(
        "Check it yourself:          empereur verify --replay --game {}",
        game.root.display()
    ));
    Ok(lines)
}

/// Write the map pictures attached to every mail the game sent under
/// `dir/report/` (after a phase, its moves drawn) and `dir/opening/` (the
/// first phase's position). A phase mail carries a picture only when
/// the recipient's view changed. Returns the files written, sorted.
fn write_pictures(game: &GameDir, dir: &std::path::Path) -> Result<Vec<PathBuf>> {
    use mail_parser::{MessageParser, MimeHeaders};
    let mut out = Vec::new();
    let mut sent: Vec<PathBuf> = std::fs::read_dir(game.sent())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    sent.sort();
    for path in sent {
        let raw = std::fs::read(&path)?;
        let Some(m) = MessageParser::default().parse(&raw[..]) else {
            continue;
        };
        // A phase mail (a report and the next opening) carries the
        // report's picture, the phase's moves drawn.
        let kind = if m.subject().is_some_and(|s| s.contains("report of")) {
            "report"
        } else {
            "opening"
        };
        for a in m.attachments() {
            let Some(name) = a.attachment_name() else { continue };
            if !(name.starts_with("map-") && (name.ends_with(".png") || name.ends_with(".svg"))) {
                continue;
            }
            let target = dir.join(kind).join(name);
            std::fs::create_dir_all(dir.join(kind))?;
            std::fs::write(&target, a.contents())?;
            out.push(target);
        }
    }
    out.sort();
    Ok(out)
}

/// The first few lines of what happened in a history entry, for the
/// demo's summary.
fn headline(game: &GameDir, entry: &str) -> Result<Vec<String>> {
    let text = store::read_text(&history::entry_dir(game, entry).join("outcomes.toml"))?;
    let outcomes: history::OutcomesFile = toml::from_str(&text)?;
    Ok(outcomes
        .outcomes
        .iter()
        .filter(|o| !matches!(o.kind.as_str(), "chit-draw"))
        .take(4)
        .map(|o| o.summary.clone())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::sent_at;
    use chrono::{TimeZone, Utc};

    fn at() -> chrono::DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 1, 4, 12, 0, 0).unwrap()
    }

    #[test]
    fn the_date_header_is_replaced_and_the_body_kept_with_lf_or_crlf() {
        let date = format!("Date: {}", at().to_rfc2822());
        let lf = b"From: a@b\nDate: Mon, 1 Jan 2024 00:00:00 +0000\nSubject: s\n\nMOVE x\n\nDate: body line\n";
        let got = String::from_utf8(sent_at(lf, at())).unwrap();
        assert_eq!(
            got,
            format!("From: a@b\n{date}\nSubject: s\n\nMOVE x\n\nDate: body line\n")
        );
        let crlf = b"From: a@b\r\nDATE: Mon, 1 Jan 2024 00:00:00 +0000\r\n\r\nMOVE x\r\n";
        let got = String::from_utf8(sent_at(crlf, at())).unwrap();
        assert_eq!(got, format!("From: a@b\r\n{date}\r\n\r\nMOVE x\r\n"));
    }

    #[test]
    fn a_mail_without_a_date_gets_one_at_the_end_of_its_header() {
        let date = format!("Date: {}", at().to_rfc2822());
        let got = String::from_utf8(sent_at(b"From: a@b\n\nbody \xc3\xa9\n", at())).unwrap();
        assert_eq!(got, format!("From: a@b\n{date}\n\nbody \u{e9}\n"));
    }
}
