#![allow(clippy::disallowed_methods)] // a bench binary: arguments and the clock are its job
//! `empereur run --games DIR` over 200 generated games: the time and the
//! fsyncs per game of a run that opens every game's first phase (mail
//! out), of a quiet run (nothing due: the quick path), of the same quiet
//! run with the quick path off (its baseline), and of one that resolves a
//! phase in every game (late defaults, history, reports, next openings,
//! send); on the disk, then in `/dev/shm` (the in-memory baseline).
//! Numbers on a shared machine are noisy: compare within one run.
//!
//! cargo bench --bench run_games [-- GAMES]

mod common;
use chrono::{DateTime, Utc};
use empereur::ops::new::{NewOptions, create_from};
use empereur::ops::run::{game_dirs, run_game};
use empereur::store;
use std::path::PathBuf;
use std::time::Instant;

/// France and Great Britain played (3.0), the rest NPCs.
const PLAYERS: &str = include_str!("../tests/fixtures/players/france_britain.toml");

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// Wall seconds, CPU seconds, fsyncs, phases resolved, picture bodies
/// encoded (rows under the title; a view shared by the games is encoded
/// once).
type Pass = (f64, f64, store::durable::Stats, usize, usize);

fn pass(dirs: &[PathBuf], when: &str, forget_wake: bool, no_hold: bool) -> Pass {
    if forget_wake {
        for d in dirs {
            let _ = std::fs::remove_file(d.join(".wake"));
        }
    }
    let before = store::durable::stats();
    let bodies = empereur::picture::bodies_encoded();
    let cpu0 = common::cpu_secs(true).unwrap_or(0.0);
    let start = Instant::now();
    let mut resolved = 0;
    // As `run --games` does: one group over every game, the pictures'
    // canvases held across them.
    let group = store::durable::group();
    let pictures = (!no_hold).then(empereur::picture::hold);
    for d in dirs {
        let r = run_game(d, &[], t(when)).unwrap();
        resolved += r.resolved.len();
    }
    drop(pictures);
    group.commit().unwrap();
    (
        start.elapsed().as_secs_f64(),
        common::cpu_secs(true).unwrap_or(0.0) - cpu0,
        store::durable::Stats {
            fsyncs: store::durable::stats().fsyncs - before.fsyncs,
            barriers: store::durable::stats().barriers - before.barriers,
        },
        resolved,
        empereur::picture::bodies_encoded() - bodies,
    )
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(common::size(200, 2));
    let mut places = vec![("disk", std::env::temp_dir())];
    if std::path::Path::new("/dev/shm").is_dir() {
        places.push(("/dev/shm (baseline)", PathBuf::from("/dev/shm")));
    }
    for (place, base) in places {
        let tmp = tempfile::tempdir_in(&base).unwrap();
        let setup = Instant::now();
        // Three sets of the same games: the first runs as now (canvases
        // held over the games), as before (given back after each game),
        // and without pictures (what the rest of a first run costs).
        let sets: Vec<Vec<PathBuf>> = ["now", "before", "nopics"]
            .iter()
            .map(|set| {
                let root = tmp.path().join(set);
                for i in 0..n {
                    let players = store::players::parse("players.toml", PLAYERS).unwrap();
                    let o = NewOptions {
                        dir: root.join(format!("game-{i:03}")),
                        scenario: "1805".into(),
                        players: PathBuf::new(),
                        options: vec![],
                        id: Some(format!("game-{i:03}")),
                        house_seating: true,
                    };
                    create_from(&o, players).unwrap();
                }
                let dirs = game_dirs(&root).unwrap();
                assert_eq!(dirs.len(), n);
                dirs
            })
            .collect();
        println!(
            "{place} ({}): created 3 x {n} games in {:.1} s (two argon2 hashes each)",
            base.display(),
            setup.elapsed().as_secs_f64()
        );
        let line = |label: &str, (secs, cpu, synced, resolved, bodies): Pass, target: &str| {
            println!(
                "  {label}: {n} games in {secs:.3} s, {:.2} ms a game ({:.2} ms CPU), {:.1} fsyncs in {:.1} barriers a game, {resolved} phase(s) resolved, {bodies} picture bodies encoded; {target}",
                secs * 1000.0 / n as f64,
                cpu * 1000.0 / n as f64,
                synced.fsyncs as f64 / n as f64,
                synced.barriers as f64 / n as f64
            );
        };
        let first = "2026-01-05T10:00:00Z";
        line(
            "first run, as before (each game's pictures drawn from nothing)",
            pass(&sets[1], first, false, true),
            "baseline",
        );
        empereur::picture::skip_for_bench(true);
        line(
            "first run without pictures",
            pass(&sets[2], first, false, false),
            "what the rest costs",
        );
        empereur::picture::skip_for_bench(false);
        let dirs = &sets[0];
        for (label, when, forget, target) in [
            (
                "first run (opens the phase, mails every player; the base of each view shared by the games)",
                "2026-01-05T10:00:00Z",
                false,
                "target <= 15 ms a game",
            ),
            (
                "quiet run (nothing due; quick path)",
                "2026-01-05T11:00:00Z",
                false,
                "target <= 3 ms a game, no fsync",
            ),
            (
                "quiet run, quick path off (baseline: .wake removed)",
                "2026-01-05T11:30:00Z",
                true,
                "baseline of the quiet run",
            ),
            (
                "resolving run (grace over: defaults, history, reports, openings)",
                "2026-01-08T10:00:00Z",
                false,
                "no target",
            ),
        ] {
            line(label, pass(dirs, when, forget, false), target);
        }
    }
}
