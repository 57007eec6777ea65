//! Set-up shared by the tests of what veterans of njudge and Diplicity
//! expect at the table (time zones, draws, observers, the report's
//! shape): the demo's seven players in a game run by `run` on an
//! injected clock, order mails as a player's client sends them, and the
//! mailboxes the file transport delivered to.
#![allow(clippy::disallowed_methods)] // tests use files freely
#![allow(dead_code)] // each test module uses its own part

use chrono::{DateTime, Utc};
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::ops::run::run_game;
use empereur::store::{self, GameConfig, GameDir};
use std::path::{Path, PathBuf};

pub fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// The game's first `run`: Monday 2026-01-05 10:00 UTC.
pub const OPENED: &str = "2026-01-05T10:00:00Z";

/// The demo's seven players (and `extra`, more `players.toml` text such
/// as an `[[observer]]`), deadlines at 20:00 Paris time, `edit` applied
/// to game.toml; the first `run` at [`OPENED`] opens the Turn Start
/// (France alone orders, 4.6), due Tuesday 20:00 Paris = 19:00 UTC.
pub fn game(root: &Path, extra: &str, edit: impl FnOnce(&mut GameConfig)) -> GameDir {
    game_with(root, extra, &[], edit)
}

/// [`game`] created with the game options `options` (`empereur new
/// --option`).
pub fn game_with(root: &Path, extra: &str, options: &[&str], edit: impl FnOnce(&mut GameConfig)) -> GameDir {
    let g = created(root, extra, options, edit);
    run_game(&g.root, &[], t(OPENED)).unwrap();
    g
}

/// [`game_with`] before its first `run`: created, nothing opened yet.
pub fn created(root: &Path, extra: &str, options: &[&str], edit: impl FnOnce(&mut GameConfig)) -> GameDir {
    let players = store::players::parse("players.toml", &format!("{DEMO_PLAYERS}\n{extra}")).unwrap();
    let dir = root.join("g");
    let o = NewOptions {
        dir: dir.clone(),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: options.iter().map(|o| o.to_string()).collect(),
        id: Some("demo".into()),
        house_seating: true,
    };
    create_from(&o, players).unwrap();
    let g = GameDir::new(&dir);
    let mut c = g.load_config().unwrap();
    c.timezone = "Europe/Paris".into();
    c.deadlines.time_of_day = Some("20:00".into());
    edit(&mut c);
    store::atomic_write(&g.config(), c.to_toml().as_bytes()).unwrap();
    g
}

/// The demo password of `power` (its id).
pub fn password(power: &str) -> String {
    store::players::parse("players.toml", DEMO_PLAYERS)
        .unwrap()
        .players
        .into_iter()
        .find(|p| p.power.id() == power)
        .unwrap_or_else(|| panic!("no demo player for {power}"))
        .password
}

/// A mail from `from` with message id `id` and this body.
pub fn raw(from: &str, id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\nTo: gm@demo.example.org\nSubject: orders\nMessage-ID: <{id}@x.example.org>\nDate: Mon, 05 Jan 2026 10:30:00 +0000\n\n{body}\n"
    )
    .replace('\n', "\r\n")
    .into_bytes()
}

/// An order mail of `power` (its id) from its player's address: the
/// header lines, then `lines`.
pub fn orders(power: &str, id: &str, lines: &str) -> Vec<u8> {
    raw(
        &format!("{power}@demo.example.org"),
        id,
        &format!("GAME demo\nPOWER {power}\nPASSWORD {}\n{lines}", password(power)),
    )
}

/// One delivered mail.
pub struct Got {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub in_reply_to: String,
    pub attachments: Vec<(String, Vec<u8>)>,
    pub raw: String,
}

/// Every mail the file transport delivered to `addr` (To or Cc).
pub fn mailbox(g: &GameDir, addr: &str) -> Vec<Got> {
    let d = g.root.join("mail/files");
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&d) else {
        return out;
    };
    for e in entries {
        let raw = std::fs::read(e.unwrap().path()).unwrap();
        let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let list = |a: Option<&mail_parser::Address>| {
            a.map(|a| a.iter().filter_map(|x| x.address()).collect::<Vec<_>>().join(","))
                .unwrap_or_default()
        };
        let (to, cc) = (list(m.to()), list(m.cc()));
        if !to.contains(addr) && !cc.contains(addr) {
            continue;
        }
        out.push(Got {
            to,
            subject: m.subject().unwrap_or("").to_string(),
            text: m.body_text(0).map(|b| b.replace("\r\n", "\n")).unwrap_or_default(),
            in_reply_to: m.in_reply_to().as_text().unwrap_or("").to_string(),
            attachments: m
                .attachments()
                .map(|a| {
                    let name = mail_parser::MimeHeaders::attachment_name(a).unwrap_or("");
                    (name.to_string(), a.contents().to_vec())
                })
                .collect(),
            raw: String::from_utf8_lossy(&raw).into_owned(),
        });
    }
    out
}

/// The text of the acknowledgement of message `id` (the file transport's
/// copy), up to its signature, receipts masked. A mail that closed the
/// phase at once is answered at the top of the phase mail of the same
/// run (issue 37): its text is the answer's part of that mail.
pub fn ack(g: &GameDir, id: &str) -> String {
    let d = g.root.join("mail/files");
    let needle = format!("In-Reply-To: <{id}@x.example.org>");
    let raw = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .find(|m| m.contains(&needle))
        .unwrap_or_else(|| panic!("no acknowledgement of {id}"));
    let parsed = mail_parser::MessageParser::default().parse(raw.as_bytes()).unwrap();
    let body = parsed.body_text(0).unwrap().replace("\r\n", "\n");
    let folded = body
        .strip_prefix("In answer to your mail ")
        .and_then(|b| b.split_once("\":\n\n"))
        .and_then(|(_, b)| b.split_once("\n\nPhase "))
        .map(|(answer, _)| answer.to_string());
    if folded.is_none() {
        assert!(
            raw.contains("Subject: Re:"),
            "{id} is answered by neither an answer nor a phase mail"
        );
    }
    let body = folded.unwrap_or(body);
    let cut = body.find("\n--\n").map_or(body.as_str(), |i| &body[..i]);
    cut.lines()
        .map(|l| {
            let t = l.trim();
            if t.len() == 64 && t.chars().all(|c| c.is_ascii_hexdigit()) {
                "  [receipt]"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with every run of white space one space (mail wraps at 72).
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The mail to `addr` whose subject contains `subject`.
pub fn find(g: &GameDir, addr: &str, subject: &str) -> Got {
    mailbox(g, addr)
        .into_iter()
        .find(|m| m.subject.contains(subject))
        .unwrap_or_else(|| panic!("no mail to {addr} about '{subject}'"))
}
