//! The two text paths that must stay linear: `check` of a file with 40 %
//! rejected lines (diagnostics rendered as `check` prints them) and one
//! 256 KiB order mail through ingest. Each is measured against its
//! linear baseline in the same run: the file at 16k and 32k lines (a
//! linear path takes about twice as long for twice the lines, a
//! quadratic one four times), the big mail (ingested and its
//! acknowledgement sent through lettre) against the same bytes in a
//! hundred small mails. CPU time where Linux gives it. Noisy on a shared
//! machine: read the ratios.
//!
//!     cargo bench --bench text
#![allow(clippy::disallowed_methods)] // a benchmark reads files and the clock

mod common;
use chrono::Utc;
use empereur::ids::PowerId;
use empereur::mail::ingest::{self, GameCtx, Run};
use empereur::mail::transport::{self, Delivery};
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::orders;
use empereur::state::State;
use std::collections::BTreeSet;
use std::path::Path;
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
    let (na, nb) = common::size((16_000, 32_000), (200, 400));
    for round in 1..=common::size(2, 1) {
        let (a, b) = (file(na), file(nb));
        let ta = timed(|| check(&a));
        let tb = timed(|| check(&b));
        println!(
            "check, 40 % rejected, round {round}: {na} lines {:.3} s ({:.0} lines/s), {nb} lines {:.3} s ({:.0} lines/s); {nb} / {na} = {:.2} (linear 2, quadratic 4); target linear and >= 100,000 lines/s",
            ta,
            na as f64 / ta,
            tb,
            nb as f64 / tb,
            tb / ta
        );
    }

    unknown_provinces();

    // One 256 KiB order mail against the same bytes in 100 mails.
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("game");
    common::new_game(&game, DEMO_PLAYERS, "demo");
    let ctx = GameCtx::load(&game).unwrap();
    let mail = |tag: &str, body_lines: &[String]| {
        format!(
            "From: <france@demo.example.org>\r\nTo: gm@demo.example.org\r\nSubject: orders\r\nMessage-ID: <{tag}@bench>\r\nDate: Mon, 05 Jan 2026 12:00:00 +0000\r\n\r\nGAME demo\r\nPOWER France\r\nPASSWORD austerlitz\r\n{}\r\n",
            body_lines.join("\r\n")
        )
        .into_bytes()
    };
    // Lines for the game's open phase (Turn Start): standing orders are
    // accepted there; the rejected ones are those `check` rejected above.
    let good = [
        "STANDING RETREAT Paris",
        "STANDING COMBAT ATTACKING grand assault",
        "STANDING WITHDRAW IF OUTNUMBERED 3:1",
    ];
    let mut lines = Vec::new();
    let mut size = 0;
    let mut i = 0;
    // Headers and all within the mail size limit (256 KiB).
    while size < common::size(255, 8) * 1024 {
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
    // The password check once, outside both timings (cached per run),
    // and its acknowledgement sent.
    let sender = transport::sender(&ctx.dir, &ctx.config.mail.transport).unwrap();
    let send = |run: &mut Run| {
        run.flush().unwrap();
        let sent = transport::send_all(&ctx.dir, Some(&sender), &[], Utc::now()).unwrap();
        assert!(sent.iter().all(|d| matches!(d, Delivery::Sent { .. })), "{sent:?}");
        sent.len()
    };
    ingest::ingest_game(&ctx, &mail("warm", &lines[..1]), &mut run).unwrap();
    send(&mut run);
    // Each: ingest (archive, parse, check, diagnostics, store, the
    // acknowledgement quoting every rejected line) and send (CRLF, lettre).
    let mut acks = 0;
    let t_small = timed(|| {
        for m in &small {
            ingest::ingest_game(&ctx, m, &mut run).unwrap();
        }
        acks += send(&mut run);
    });
    let t_big = timed(|| {
        let h = ingest::ingest_game(&ctx, &big, &mut run).unwrap();
        assert_eq!(h.verdict.code(), "accepted", "{:?}", h.verdict);
        acks += send(&mut run);
    });
    assert!(acks > 0, "the acknowledgements went out");
    println!(
        "one {} KiB order mail ({} lines, 40 % rejected), ingested and answered: {:.1} ms CPU; the same bytes in {} mails (baseline): {:.1} ms; big / baseline = {:.2}; target <= 50 ms",
        big.len() / 1024,
        lines.len(),
        t_big * 1000.0,
        small.len(),
        t_small * 1000.0,
        t_big / t_small
    );
}

/// `check` on the 1805 map where 40 % of the lines name a province that
/// does not exist (a real name with one letter dropped, each answered with
/// "did you mean"), against the same file with the names spelt right (the
/// baseline, same run), at n and 2n lines.
fn unknown_provinces() {
    let scenario = empereur::scenario::Scenario::embedded("1805").expect("1805");
    let players: BTreeSet<PowerId> = PowerId::ALL.iter().copied().collect();
    let mut state = State::initial(&scenario, "bench", &players, BTreeSet::new());
    state.phase = "1805-fall-france".parse().expect("phase");
    let names: Vec<&str> = scenario.map.provinces.iter().map(|p| p.name.as_str()).collect();
    // A misspelling: the name without its second letter.
    let misspelt = |n: &str| -> String { n.chars().enumerate().filter(|(i, _)| *i != 1).map(|(_, c)| c).collect() };
    let file = |n: usize, wrong: bool| {
        let mut s = String::from("POWER France\n");
        for i in 0..n {
            let name = names[i % names.len()];
            if i % 5 < 3 {
                s.push_str("STANDING RETREAT Paris\n");
            } else if wrong {
                s.push_str(&format!("STANDING RETREAT {}\n", misspelt(name)));
            } else {
                s.push_str(&format!("STANDING RETREAT {name}\n"));
            }
        }
        s
    };
    let check = |text: &str| {
        let c = orders::check(text, &scenario, &state, None);
        std::hint::black_box(empereur::ops::check::report(&c, "orders.txt", text)).len()
    };
    // The bad lines must really be unknown provinces with a suggestion.
    let sample = file(5, true);
    let shown = empereur::ops::check::report(&orders::check(&sample, &scenario, &state, None), "orders.txt", &sample);
    assert!(
        shown.contains("unknown-province") && shown.contains("did you mean"),
        "{shown}"
    );
    let (na, nb) = common::size((20_000, 40_000), (100, 200));
    for round in 1..=common::size(2, 1) {
        let (a, b, right) = (file(na, true), file(nb, true), file(nb, false));
        let ta = timed(|| {
            check(&a);
        });
        let tb = timed(|| {
            check(&b);
        });
        let tr = timed(|| {
            check(&right);
        });
        println!(
            "check on the 1805 map, 40 % unknown provinces, round {round}: {na} lines {:.3} s ({:.0} lines/s), {nb} lines {:.3} s ({:.0} lines/s); {nb} / {na} = {:.2} (linear 2, quadratic 4); baseline, the {nb} lines spelt right: {:.3} s ({:.0} lines/s); target >= 100,000 lines/s",
            ta,
            na as f64 / ta,
            tb,
            nb as f64 / tb,
            tb / ta,
            tr,
            nb as f64 / tr
        );
    }
}
