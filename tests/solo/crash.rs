//! Crash safety of `run`: a run that dies after any durable write (an
//! injected failure, `store::fault`), then runs again, ends in the same
//! state as an uninterrupted run, with no message lost or sent twice.
#![allow(clippy::disallowed_methods)] // tests use files freely

use chrono::{DateTime, Utc};
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::ops::run::run_game;
use empereur::store::{self, GameDir, fault};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

const FRANCE: &str = "From: \"Napoleon's Player\" <france@demo.example.org>\r\nTo: gm@demo.example.org\r\nSubject: orders\r\nMessage-ID: <crash-test-1@demo.example.org>\r\nDate: Mon, 05 Jan 2026 12:00:00 +0000\r\n\r\nGAME demo\r\nPOWER France\r\nPASSWORD austerlitz\r\nMOVE FIRST\r\n";

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// A game whose Turn Start is open and announced.
fn base(root: &Path) -> PathBuf {
    let players = store::players::parse("players.toml", DEMO_PLAYERS).unwrap();
    let dir = root.join("base");
    let o = NewOptions {
        dir: dir.clone(),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: vec![],
        id: Some("demo".into()),
        house_seating: true,
    };
    create_from(&o, players).unwrap();
    run_game(&dir, &[], t("2026-01-05T10:00:00Z")).unwrap();
    dir
}

/// The two runs of the scenario: France's mail arrives and is answered;
/// an hour later the phase resolves and the reports and the next
/// openings go out. A run that fails is run again, as cron would.
fn play(dir: &Path) {
    let mail = vec![FRANCE.as_bytes().to_vec()];
    for (incoming, when) in [
        (mail.as_slice(), "2026-01-05T12:00:00Z"),
        (&[][..], "2026-01-05T13:00:00Z"),
    ] {
        let mut tries = 0;
        while run_game(dir, incoming, t(when)).is_err() {
            tries += 1;
            assert!(tries < 5, "run keeps failing after a crash");
        }
    }
}

/// Message-ID -> how many times it was delivered (file transport), and
/// the ids still queued or held in the outbox.
fn deliveries(dir: &Path) -> (BTreeMap<String, u32>, Vec<String>) {
    let mut sent = BTreeMap::new();
    if let Ok(rd) = std::fs::read_dir(dir.join("mail/files")) {
        for e in rd {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            let id = text
                .lines()
                .find(|l| l.to_ascii_lowercase().starts_with("message-id:"))
                .unwrap_or("none")
                .to_string();
            *sent.entry(id).or_insert(0) += 1;
        }
    }
    let held = empereur::mail::outbox::queued(&GameDir::new(dir)).unwrap();
    (sent, held)
}

#[test]
fn run_after_a_crash_at_any_write_ends_like_an_uninterrupted_run() {
    let _alone = crate::alone();
    let tmp = tempfile::tempdir().unwrap();
    let base = base(tmp.path());

    // The uninterrupted run, counting the write points it passes.
    let reference = tmp.path().join("reference");
    copy(&base, &reference);
    fault::arm(u32::MAX);
    play(&reference);
    let points = fault::disarm();
    assert!(points > 20, "only {points} write points: is the fault injection wired?");
    let want_state = std::fs::read(reference.join("state.toml")).unwrap();
    let (want_sent, want_held) = deliveries(&reference);
    assert!(want_held.is_empty());
    assert!(want_sent.values().all(|&n| n == 1));
    assert!(
        want_sent.len() >= 16,
        "ack, 8 reports and 7 openings: {}",
        want_sent.len()
    );

    // Crash after an even sample of 8 write points across the two runs
    // (archive, ack, submission, history, state, reports, sends), which
    // keeps the default `cargo test` quick; all of them with
    // EMPEREUR_CRASH_ALL=1 (about 100 s in a debug build).
    let all = std::env::var("EMPEREUR_CRASH_ALL").is_ok_and(|v| v == "1");
    let stride = if all { 1 } else { (points / 8).max(1) };
    let mut crashes = 0;
    for n in (0..points).step_by(stride as usize) {
        let dir = tmp.path().join(format!("crash-{n}"));
        copy(&base, &dir);
        fault::arm(n);
        play(&dir);
        fault::disarm();
        crashes += 1;
        assert_eq!(
            std::fs::read(dir.join("state.toml")).unwrap(),
            want_state,
            "state after a crash at write {n} differs"
        );
        let (sent, held) = deliveries(&dir);
        for (id, k) in &sent {
            assert_eq!(*k, 1, "crash at write {n}: {id} delivered {k} times");
        }
        // A message interrupted in the middle of sending is held for the
        // moderator (at most once: it may or may not have gone out before
        // the crash); every other one went out exactly once. Nothing lost.
        assert!(held.len() <= 1, "crash at write {n}: held {held:?}");
        assert!(
            sent.len() <= want_sent.len(),
            "crash at write {n}: {} sent, want {}",
            sent.len(),
            want_sent.len()
        );
        assert!(
            sent.len() + held.len() >= want_sent.len(),
            "crash at write {n}: {} sent + {} held, want {}: a message was lost",
            sent.len(),
            held.len(),
            want_sent.len()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(crashes >= 8.min(points));
}
