//! `empereur site` of a whole 1805–1815 campaign against `export-history`
//! of the same game, in the same run (issue: the site of a whole campaign
//! in less than twice the time of the export). The campaign is autoplayed
//! (seven Player Countries, generated orders, committed dice) until the
//! game ends or 1815 is over; both are timed best of several runs, each
//! writing into a new directory (the site) or file (the tarball).
//!
//!     cargo bench --bench site [-- REPEATS]
#![allow(clippy::disallowed_methods)] // a benchmark reads the clock and files

mod common;
use empereur::ops::autoplay::autoplay;
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::export;
use empereur::ops::new::{NewOptions, create_from};
use empereur::ops::site::{self, SiteArgs};
use empereur::store::{self, GameDir};
use std::time::{Duration, Instant};

/// Phases from 1805 fall to the end of 1815: 41 seasons, up to nine
/// phases each (Turn Start, seven Player Turns, Build; one in winter).
const CAMPAIGN: u32 = 41 * 9;

fn best<F: FnMut(usize)>(runs: usize, mut f: F) -> Duration {
    (0..runs)
        .map(|i| {
            let t = Instant::now();
            f(i);
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    let repeats: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(common::size(5, 1));
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    let players = store::players::parse("players.toml", DEMO_PLAYERS).unwrap();
    create_from(
        &NewOptions {
            dir: root.clone(),
            scenario: "1805".into(),
            players: Default::default(),
            options: vec![],
            id: Some("bench".into()),
            house_seating: true,
        },
        players,
    )
    .unwrap();
    let dir = GameDir::new(&root);
    let played = autoplay(&dir, common::size(CAMPAIGN, 3), 7, Some("2026-01-05T10:00:00Z")).unwrap();
    let state = dir.load_state().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();

    let mut files = 0;
    let e = best(repeats, |i| {
        files = export::export(&dir, &out.join(format!("history-{i}.tar"))).unwrap();
    });
    let mut written = None;
    let s = best(repeats, |i| {
        written = Some(
            site::run(&SiteArgs {
                game: root.clone(),
                out: out.join(format!("site-{i}")),
            })
            .unwrap(),
        );
    });
    let written = written.unwrap();
    assert_eq!(
        written.entries as u32,
        played.resolved + 1,
        "the genesis entry and one entry a phase"
    );
    let index = std::fs::read_to_string(written.out.join("index.html")).unwrap();
    assert!(index.contains(r#"id="verdict""#));
    println!(
        "site of a campaign ({} phases, to {}): {} files in {:.1} ms; export-history of the same game: {} files in {:.1} ms; ratio {:.2} (target < 2); best of {repeats}",
        played.resolved,
        state.phase,
        written.files,
        s.as_secs_f64() * 1e3,
        files,
        e.as_secs_f64() * 1e3,
        s.as_secs_f64() / e.as_secs_f64()
    );
}
