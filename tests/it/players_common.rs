//! Set-up shared by the player-command and press tests: a 1805 game
//! with France and Austria played by mail, and order mails built the way
//! a player's client sends them.
#![allow(dead_code)] // each test file uses its own part

use chrono::{DateTime, Utc};
use empereur::ops::new::{NewOptions, create_from};
use empereur::store::players;
use std::path::{Path, PathBuf};

pub const PLAYERS: &str = r#"
[moderator]
name = "Demo Moderator"
email = "gm@demo.example.org"

[[player]]
power = "france"
name = "Napoleon's Player"
email = "france@demo.example.org"
password = "austerlitz"
timezone = "America/New_York"

[[player]]
power = "austria"
name = "Francis's Player"
email = "austria@demo.example.org"
password = "aspern"
"#;

pub fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-30T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

pub fn new_game(parent: &Path) -> PathBuf {
    let dir = parent.join("demo");
    let o = NewOptions {
        dir: dir.clone(),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: vec![],
        id: Some("demo".into()),
        house_seating: true,
    };
    create_from(&o, players::parse("players.toml", PLAYERS).unwrap()).unwrap();
    dir
}

pub fn mail(from: &str, id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: gm@demo.example.org\r\nSubject: orders\r\nMessage-ID: <{id}@x.example.org>\r\nDate: Mon, 30 Nov 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    )
    .replace("\r\n", "\n")
    .replace('\n', "\r\n")
    .into_bytes()
}

pub fn text(power: &str, password: &str, lines: &str) -> String {
    format!("GAME demo\nPOWER {power}\nPASSWORD {password}\n{lines}\nEND\n")
}

/// Copy the directory tree `from` to `to` (a game, to try something on
/// a copy of it).
#[allow(clippy::disallowed_methods)] // tests use files freely
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}
