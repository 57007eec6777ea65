//! The two text paths a long or hostile input reaches stay linear: a
//! file of 32k order lines with 40 % rejected through `check` and its
//! rendered diagnostics, and a 256 KiB order mail through ingest and the
//! sending of its acknowledgement (which quotes every rejected line, in
//! CRLF for lettre). Each is timed against a quarter of the same input:
//! a linear path takes about four times as long, a quadratic one sixteen
//! (a ratio, so the machine's speed does not matter; the best of a few
//! tries, so a busy machine does not either).
#![allow(clippy::disallowed_methods)] // the test measures time and writes files

use crate::cpu_clock::{Clock, best};
use chrono::Utc;
use empereur::ids::PowerId;
use empereur::mail::ingest::{self, GameCtx, Run};
use empereur::mail::transport::{self, Delivery};
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::orders;
use empereur::state::State;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Linear is 4; quadratic 16. Generous for noise, far from 16.
const BOUND: f64 = 9.0;

#[test]
fn checking_32k_lines_with_40_percent_rejected_stays_linear() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = empereur::store::load_scenario_dir(&root.join("tests/fixtures/orders-scenario")).unwrap();
    let players: BTreeSet<PowerId> = [PowerId::France, PowerId::Britain, PowerId::Austria].into();
    let mut state = State::initial(&scenario, "t", &players, BTreeSet::new());
    state.phase = "1805-fall-france".parse().unwrap();
    let file = |n: usize| -> String {
        let mut s = String::from("POWER France\n");
        for i in 0..n {
            // Rejected without a "did you mean" search (linear too, but
            // slow in a debug build).
            s.push_str(if i % 5 < 2 {
                "MOVE corps 1 -> Galicia\n"
            } else {
                "STANDING INTERCEPT ON\n"
            });
        }
        s
    };
    let run = |n: usize| {
        let text = file(n);
        let t = Clock::start();
        let c = orders::check(&text, &scenario, &state, None);
        let shown = empereur::ops::check::report(&c, "orders.txt", &text);
        let rejected = c.diagnostics.iter().filter(|d| d.is_error()).count();
        assert_eq!(rejected, n * 2 / 5, "40 % rejected");
        assert!(format!("{shown:?}").len() > n);
        t.elapsed()
    };
    let small = best(3, || run(8_000));
    let large = best(3, || run(32_000));
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    assert!(
        ratio < BOUND,
        "32k lines took {ratio:.1}x as long as 8k ({large:?} vs {small:?})"
    );
}

#[test]
fn a_256_kib_order_mail_is_answered_in_linear_time() {
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
            house_seating: true,
        },
        players,
    )
    .unwrap();
    let ctx = GameCtx::load(&game).unwrap();
    let sender = transport::sender(&ctx.dir, &ctx.config.mail.transport).unwrap();
    let mut run = Run::new(Utc::now());
    let mut k = 0;
    // A mail of about `kib` KiB, 40 % of its lines rejected, ingested
    // and its acknowledgement sent.
    let mut mail = |kib: usize| -> Duration {
        k += 1;
        let mut body = String::new();
        let mut i = 0;
        // Headers and all within the mail size limit (256 KiB).
        while body.len() < kib * 1024 - 1024 {
            body.push_str(if i % 5 < 2 {
                "DECLARE WAR ON Austria\r\n"
            } else {
                "STANDING RETREAT Paris\r\n"
            });
            i += 1;
        }
        let raw = format!(
            "From: <france@demo.example.org>\r\nTo: gm@demo.example.org\r\nSubject: orders\r\nMessage-ID: <big-{k}@test>\r\nDate: Mon, 05 Jan 2026 12:00:00 +0000\r\n\r\nGAME demo\r\nPOWER France\r\nPASSWORD austerlitz\r\n{body}"
        );
        let t = Clock::start();
        let h = ingest::ingest_game(&ctx, raw.as_bytes(), &mut run).unwrap();
        run.flush().unwrap();
        let sent = transport::send_all(&ctx.dir, Some(&sender), &[], Utc::now()).unwrap();
        let took = t.elapsed();
        assert_eq!(h.verdict.code(), "accepted", "{:?}", h.verdict);
        assert_eq!(sent.len(), 1, "one acknowledgement");
        assert!(matches!(sent[0], Delivery::Sent { .. }), "{sent:?}");
        took
    };
    // The password check (cached for the run) outside the timings.
    mail(4);
    let small = best(3, || mail(64));
    let large = best(3, || mail(256));
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    assert!(
        ratio < BOUND,
        "a 256 KiB mail took {ratio:.1}x as long as a 64 KiB one ({large:?} vs {small:?})"
    );
}
