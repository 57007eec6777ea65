//! `autoplay` of a whole 1805–1815 campaign (seven Player Countries,
//! generated orders, committed dice, the full history on disk), on the
//! disk and in `/dev/shm` in the same run: the ratio is what group
//! commit is for (every phase still reaches its commit point durably).
//! Prints the wall time, phases, fsyncs and barriers per phase, and the
//! ratio disk / memory. Numbers on a shared machine are noisy: repeat.
//!
//!     cargo bench --bench autoplay [-- REPEATS]
#![allow(clippy::disallowed_methods)] // a benchmark reads the clock and files

mod common;
use empereur::ops::autoplay::autoplay;
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::store::{self, GameDir, durable};
use std::path::Path;
use std::time::Instant;

struct Measured {
    secs: f64,
    phases: u32,
    fsyncs: u64,
    barriers: u64,
    /// CPU seconds (user + system).
    cpu: f64,
}

fn campaign(base: &Path) -> Measured {
    let tmp = tempfile::tempdir_in(base).unwrap();
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
    let before = durable::stats();
    let cpu0 = common::cpu_secs(true).unwrap_or(0.0);
    let t = Instant::now();
    let phases = common::size(2_000, 3);
    let s = autoplay(&dir, phases, 7, Some("2026-01-05T10:00:00Z")).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let cpu = common::cpu_secs(true).unwrap_or(0.0) - cpu0;
    let after = durable::stats();
    assert!(s.over.is_some() || s.resolved == phases);
    Measured {
        secs,
        phases: s.resolved,
        fsyncs: after.fsyncs - before.fsyncs,
        barriers: after.barriers - before.barriers,
        cpu,
    }
}

fn main() {
    let repeats: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(common::size(2, 1));
    let disk = std::env::temp_dir();
    let shm = Path::new("/dev/shm");
    for r in 1..=repeats {
        let d = campaign(&disk);
        println!(
            "run {r}: on disk ({}): {} phases in {:.2} s ({:.2} s CPU; {:.1} ms a phase), {:.1} fsyncs and {:.1} barriers a phase",
            disk.display(),
            d.phases,
            d.secs,
            d.cpu,
            d.secs * 1000.0 / f64::from(d.phases),
            d.fsyncs as f64 / f64::from(d.phases),
            d.barriers as f64 / f64::from(d.phases)
        );
        if shm.is_dir() {
            let m = campaign(shm);
            println!(
                "run {r}: in /dev/shm (baseline): {} phases in {:.2} s ({:.2} s CPU; {:.1} ms a phase); disk / memory = {:.2}x (CPU {:.2}x); target: the campaign < 2 s on disk and disk / memory <= 2x",
                m.phases,
                m.secs,
                m.cpu,
                m.secs * 1000.0 / f64::from(m.phases),
                d.secs / m.secs,
                d.cpu / m.cpu.max(1e-9)
            );
        }
    }
}
