//! The two text paths that must stay linear: `check` of a file with 40 %
//! rejected lines (diagnostics rendered as `check` prints them) and one
//! 256 KiB order mail through ingest. Each is measured against its
//! linear baseline in the same run: the file at 16k and 32k lines (a
//! linear path takes about twice as long for twice the lines, a
//! quadratic one four times), the big mail against the same bytes in a
//! hundred small mails. CPU time where Linux gives it. Noisy on a shared
//! machine: read the ratios.
//!
//!     cargo bench --bench text
#![allow(clippy::disallowed_methods)] // a benchmark reads files and the clock

use chrono::Utc;
use empereur::ids::PowerId;
use empereur::mail::ingest::{self, GameCtx, Run};
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::orders;
use empereur::state::State;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Nanoseconds this process has run on a CPU (Linux), else wall time.
fn cpu_secs(wall: Instant) -> f64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<u64>().ok())
        .map(|ns| ns as f64 / 1e9)
        .unwrap_or_else(|| wall.elapsed().as_secs_f64())
}

fn timed(f: impl FnOnce()) -> f64 {
    let w = Instant::now();
    let c0 = cpu_secs(w);
    f();
    cpu_secs(w) - c0
}

const CANDIDATES: &[&str] = &[
    "MOVE corps 1, corps 2 WITH Napoleon -> Alsace -> Bavaria",
    "move I Corps to alsace",
    "MOVE corps 3 -> Bavaria -> Vienna",
    "DECLARE WAR ON Austria",
    "PROPOSE ALLIANCE TO Britain",
    "STANDING RETREAT Paris, Alsace",
    "MOVE corps 1 -> Viena",
    "MOVE corps 3 -> Galicia",
    "MOVE Austrian corps 1 -> Bohemia",
    "FROBNICATE the army",
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = empereur::store::load_scenario_dir(&root.join("tests/fixtures/orders-scenario")).expect("fixture");
    let players: BTreeSet<PowerId> = [PowerId::France, PowerId::Britain, PowerId::Austria].into();
    let mut state = State::initial(&scenario, "bench", &players, BTreeSet::new());
    state.phase = "1805-fall-france".parse().expect("phase");

    // Sort the candidate lines into accepted and rejected ones, then mix
    // three accepted to two rejected (40 % rejected).
    let (mut good, mut bad) = (Vec::new(), Vec::new());
    for l in CANDIDATES {
        let c = orders::check(&format!("POWER France\n{l}\n"), &scenario, &state, None);
        if c.diagnostics.iter().any(|d| d.is_error()) {
            bad.push(*l);
        } else if !c.accepted.is_empty() {
            good.push(*l);
        }
    }
    assert!(!good.is_empty() && !bad.is_empty(), "need both kinds: {good:?} {bad:?}");
    let file = |n: usize| {
        let mut s = String::from("POWER France\n");
        for i in 0..n {
            s.push_str(if i % 5 < 3 {
                good[i % good.len()]
            } else {
                bad[i % bad.len()]
            });
            s.push('\n');
        }
        s
    };
    let check = |text: &str| {
        let c = orders::check(text, &scenario, &state, None);
        std::hint::black_box(empereur::ops::check::report(&c, "orders.txt", text));
    };
    for round in 1..=2 {
        let (a, b) = (file(16_000), file(32_000));
        let ta = timed(|| check(&a));
        let tb = timed(|| check(&b));
        println!(
            "check, 40 % rejected, round {round}: 16k lines {:.3} s ({:.0} lines/s), 32k lines {:.3} s ({:.0} lines/s); 32k / 16k = {:.2} (linear 2, quadratic 4)",
            ta,
            16_000.0 / ta,
            tb,
            32_000.0 / tb,
            tb / ta
        );
    }

    // One 256 KiB order mail against the same bytes in 100 mails.
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("game");
    let players = empereur::store::players::parse("players.toml", DEMO_PLAYERS).unwrap();
    create_from(
        &NewOptions {
            dir: game.clone(),
            scenario: "1805".into(),
            players: PathBuf::new(),
            options: vec![],
            id: Some("demo".into()),
        },
        players,
    )
    .unwrap();
    let ctx = GameCtx::load(&game).unwrap();
    let mail = |tag: &str, body_lines: &[String]| {
        format!(
            "From: <france@demo.example.org>\r\nTo: gm@demo.example.org\r\nSubject: orders\r\nMessage-ID: <{tag}@bench>\r\nDate: Mon, 05 Jan 2026 12:00:00 +0000\r\n\r\nGAME demo\r\nPOWER France\r\nPASSWORD austerlitz\r\n{}\r\n",
            body_lines.join("\r\n")
        )
        .into_bytes()
    };
    let mut lines = Vec::new();
    let mut size = 0;
    let mut i = 0;
    while size < 256 * 1024 {
        let l = if i % 5 < 3 {
            good[i % good.len()]
        } else {
            bad[i % bad.len()]
        }
        .to_string();
        size += l.len() + 2;
        lines.push(l);
        i += 1;
    }
    let big = mail("big", &lines);
    let small: Vec<Vec<u8>> = lines
        .chunks(lines.len().div_ceil(100))
        .enumerate()
        .map(|(k, c)| mail(&format!("small-{k}"), c))
        .collect();
    let mut run = Run::new(Utc::now());
    // The password check once, outside both timings (cached per run).
    ingest::ingest_game(&ctx, &mail("warm", &lines[..1]), &mut run).unwrap();
    let t_small = timed(|| {
        for m in &small {
            ingest::ingest_game(&ctx, m, &mut run).unwrap();
        }
    });
    let t_big = timed(|| {
        ingest::ingest_game(&ctx, &big, &mut run).unwrap();
    });
    run.flush().unwrap();
    println!(
        "one {} KiB order mail ({} lines, 40 % rejected): {:.1} ms CPU; the same bytes in {} mails (baseline): {:.1} ms; big / baseline = {:.2}",
        big.len() / 1024,
        lines.len(),
        t_big * 1000.0,
        small.len(),
        t_small * 1000.0,
        t_big / t_small
    );
}
