#![allow(clippy::disallowed_methods)] // a bench binary: arguments and the clock are its job
//! `empereur run --games DIR` over 200 generated games: the time per game
//! of a quiet run (nothing due), of a run that opens every game's first
//! phase (mail out), and of one that resolves a phase in every game
//! (late defaults, history, reports, next openings, send).
//!
//! cargo bench --bench run_games [-- GAMES]

use chrono::{DateTime, Utc};
use empereur::ops::new::{NewOptions, create_from};
use empereur::ops::run::{game_dirs, run_game};
use empereur::store;
use std::path::PathBuf;
use std::time::Instant;

const PLAYERS: &str = r#"
[moderator]
name = "GM"
email = "gm@example.org"

[[player]]
power = "france"
name = "A"
email = "a@example.org"
password = "a"

[[player]]
power = "britain"
name = "B"
email = "b@example.org"
password = "b"
"#;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn main() {
    let n: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(200);
    let tmp = tempfile::tempdir().unwrap();
    let setup = Instant::now();
    for i in 0..n {
        let players = store::players::parse("players.toml", PLAYERS).unwrap();
        let o = NewOptions {
            dir: tmp.path().join(format!("game-{i:03}")),
            scenario: "1805".into(),
            players: PathBuf::new(),
            options: vec![],
            id: Some(format!("game-{i:03}")),
        };
        create_from(&o, players).unwrap();
    }
    println!(
        "created {n} games in {:.1} s (two argon2 hashes each)",
        setup.elapsed().as_secs_f64()
    );
    let dirs = game_dirs(tmp.path()).unwrap();
    assert_eq!(dirs.len(), n);
    for (label, when) in [
        (
            "first run (opens the phase, mails every player)",
            "2026-01-05T10:00:00Z",
        ),
        ("quiet run (nothing due)", "2026-01-05T11:00:00Z"),
        (
            "resolving run (grace over: defaults, history, reports, openings)",
            "2026-01-08T10:00:00Z",
        ),
    ] {
        let start = Instant::now();
        let mut resolved = 0;
        for d in &dirs {
            let r = run_game(d, &[], t(when)).unwrap();
            resolved += r.resolved.len();
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{label}: {n} games in {secs:.2} s, {:.1} ms per game, {resolved} phase(s) resolved",
            secs * 1000.0 / n as f64
        );
    }
}
