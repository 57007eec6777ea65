//! Counting wrong passwords by mail, at its edges (issue 36: a reset
//! that never happened went unnoticed). Five wrong passwords within a
//! day lock the power for an hour (`mail::guard`); a right password
//! starts the count and the doubling again; a guess exactly a day old no
//! longer counts; the lock ends exactly when it says. Each step is one
//! mail through ingest at its own time, and what is asserted is the
//! answer the sender gets (`wrong-password`, `locked`, `accepted`).
#![allow(clippy::disallowed_methods)] // tests read and write files

use crate::players_common::{mail, new_game, now, text};
use chrono::{DateTime, Duration, Utc};
use empereur::mail::auth::Refusal;
use empereur::mail::ingest::{self, GameCtx, Run, Verdict};
use std::cell::Cell;
use std::path::Path;

/// A game and a numbered mailbox: each mail is unique and handled by a
/// run of its own at the time given (as cron runs would).
struct Game {
    ctx: GameCtx,
    n: Cell<usize>,
}

impl Game {
    fn new(parent: &Path) -> Game {
        Game {
            ctx: GameCtx::load(&new_game(parent)).unwrap(),
            n: Cell::new(0),
        }
    }

    fn send(&self, password: &str, at: DateTime<Utc>) -> Verdict {
        let n = self.n.get() + 1;
        self.n.set(n);
        let raw = mail(
            "guesser@evil.example.net",
            &format!("m{n}"),
            &text("france", password, "PHASE 1805-fall-turn-start\nMOVE FIRST"),
        );
        let mut run = Run::new(at);
        let h = ingest::ingest_game(&self.ctx, &raw, &mut run).unwrap();
        run.flush().unwrap();
        h.verdict
    }

    fn code(&self, password: &str, at: DateTime<Utc>) -> &'static str {
        self.send(password, at).code()
    }
}

/// A lock's end as the refusal words it (to the minute, UTC).
fn shown(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

fn min(m: i64) -> Duration {
    Duration::minutes(m)
}

#[test]
fn the_fifth_wrong_password_in_a_day_locks_the_fourth_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Game::new(tmp.path());
    for i in 0..4 {
        assert_eq!(g.code("guess", now() + min(i)), "wrong-password", "guess {i}");
    }
    // Four wrong guesses leave the right password working.
    assert_eq!(g.code("austerlitz", now() + min(5)), "accepted");
}

#[test]
fn a_right_password_starts_the_count_of_wrong_ones_again() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Game::new(tmp.path());
    for i in 0..4 {
        assert_eq!(g.code("guess", now() + min(i)), "wrong-password", "first {i}");
    }
    assert_eq!(g.code("austerlitz", now() + min(10)), "accepted");
    // Were the four above still counted, the first of these would lock.
    for i in 0..4 {
        assert_eq!(g.code("guess", now() + min(20 + i)), "wrong-password", "second {i}");
    }
    assert_eq!(g.code("austerlitz", now() + min(30)), "accepted");
}

#[test]
fn the_fifth_guess_locks_for_exactly_an_hour() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Game::new(tmp.path());
    for i in 0..5 {
        assert_eq!(g.code("guess", now() + min(i)), "wrong-password", "guess {i}");
    }
    let locked_at = now() + min(4);
    match g.send("austerlitz", locked_at + min(59)) {
        Verdict::Refused(Refusal::Locked { until, .. }) => assert_eq!(until, shown(locked_at + Duration::hours(1))),
        v => panic!("the right password during the lock: {v:?}"),
    }
    let just_before = locked_at + Duration::hours(1) - Duration::seconds(1);
    assert_eq!(g.code("austerlitz", just_before), "locked");
    assert_eq!(g.code("austerlitz", locked_at + Duration::hours(1)), "accepted");
}

#[test]
fn a_second_lock_doubles_unless_a_right_password_came_between() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Game::new(tmp.path());
    let lock = |start: DateTime<Utc>| -> String {
        for i in 0..5 {
            assert_eq!(g.code("guess", start + min(i)), "wrong-password", "{start} guess {i}");
        }
        match g.send("guess", start + min(5)) {
            Verdict::Refused(Refusal::Locked { until, .. }) => until,
            v => panic!("after five guesses: {v:?}"),
        }
    };
    // A first lock, then five more guesses after it: two hours.
    let t1 = now();
    assert_eq!(lock(t1), shown(t1 + min(4) + Duration::hours(1)));
    let t2 = t1 + Duration::hours(2);
    assert_eq!(lock(t2), shown(t2 + min(4) + Duration::hours(2)));
    // The right password after that lock: the next lock is an hour again.
    let t3 = t2 + Duration::hours(3);
    assert_eq!(g.code("austerlitz", t3), "accepted");
    let t4 = t3 + min(10);
    assert_eq!(lock(t4), shown(t4 + min(4) + Duration::hours(1)));
}

#[test]
fn a_guess_exactly_a_day_old_no_longer_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Game::new(tmp.path());
    let day = Duration::hours(24);
    for i in 0..4 {
        assert_eq!(g.code("guess", now() + min(i)), "wrong-password", "old {i}");
    }
    // The first old guess is exactly a day old: three old ones and this.
    assert_eq!(g.code("guess", now() + day), "wrong-password");
    assert_eq!(g.code("austerlitz", now() + day + min(1)), "accepted");

    let tmp = tempfile::tempdir().unwrap();
    let g = Game::new(tmp.path());
    for i in 0..4 {
        assert_eq!(g.code("guess", now() + min(i)), "wrong-password", "old {i}");
    }
    // A second short of a day, all four still count: this one locks.
    assert_eq!(g.code("guess", now() + day - Duration::seconds(1)), "wrong-password");
    assert_eq!(g.code("austerlitz", now() + day + min(1)), "locked");
}

/// Issue 33 point 5, the optional second factor (RFC 8601): with
/// `[mail] authentication_results` naming the game's own server, a mail
/// under France's address is its player's only when that server's
/// `Authentication-Results` vouches for the sender's domain. Otherwise
/// the right password is still taken, the answer (in the real player's
/// mailbox) says the server could not confirm the sender, and wrong
/// passwords under that address lock it, while the player's vouched
/// mail still gets through. Off, the same mails are the player's own.
#[test]
fn with_the_second_factor_an_unconfirmed_players_address_is_a_stranger() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = new_game(tmp.path());
    let g = empereur::store::GameDir::new(&dir);
    let mut config = g.load_config().unwrap();
    config.mail.authentication_results = Some("mx.demo.example.org".into());
    empereur::store::atomic_write(&g.config(), config.to_toml().as_bytes()).unwrap();
    assert!(
        std::fs::read_to_string(g.config())
            .unwrap()
            .contains("authentication_results = \"mx.demo.example.org\"")
    );
    let ctx = GameCtx::load(&dir).unwrap();
    let n = Cell::new(0);
    let send = |header: &str, password: &str, at: DateTime<Utc>| {
        n.set(n.get() + 1);
        let mut raw = header.as_bytes().to_vec();
        raw.extend(mail(
            "france@demo.example.org",
            &format!("f{}", n.get()),
            &text("france", password, "PHASE 1805-fall-turn-start\nMOVE FIRST"),
        ));
        let mut run = Run::new(at);
        let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
        run.flush().unwrap();
        h
    };
    let ours = "Authentication-Results: mx.demo.example.org;\r\n dkim=pass header.d=demo.example.org header.s=s1;\r\n dmarc=pass (p=reject) header.from=demo.example.org\r\n";
    let theirs = "Authentication-Results: mx.evil.example.net; dmarc=pass header.from=demo.example.org\r\n";
    let on_record = |h: &ingest::Handled| match &h.verdict {
        Verdict::Accepted { sender_on_record, .. } => *sender_on_record,
        other => panic!("{other:?}"),
    };
    let ack = |h: &ingest::Handled| {
        let id = &h.replies[0];
        std::fs::read_to_string(g.outbox().join(format!("{id}.eml")))
            .unwrap()
            .replace("=\r\n", "")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(on_record(&send(ours, "austerlitz", now())));
    for (i, header) in ["", theirs].into_iter().enumerate() {
        let h = send(header, "austerlitz", now() + min(1 + i as i64));
        assert!(!on_record(&h), "{header}");
        assert_eq!(h.replies.len(), 1, "no copy to the same address: {:?}", h.replies);
        assert!(
            ack(&h).contains(
                "the game's mail server could not confirm that this message came from france@demo.example.org"
            ),
            "{}",
            ack(&h)
        );
    }
    // Wrong passwords under the unconfirmed address lock it…
    for i in 0..5 {
        assert_eq!(send("", "guess", now() + min(10 + i)).verdict.code(), "wrong-password");
    }
    assert!(matches!(
        send(theirs, "austerlitz", now() + min(20)).verdict,
        Verdict::Refused(Refusal::Locked { .. })
    ));
    // …never the player's own, vouched for by the game's server.
    assert!(on_record(&send(ours, "austerlitz", now() + min(21))));

    // Off (the default): the same mail is the player's own.
    let tmp2 = tempfile::tempdir().unwrap();
    let off = GameCtx::load(&new_game(tmp2.path())).unwrap();
    let mut run = Run::new(now());
    let h = ingest::ingest_game(
        &off,
        &mail(
            "france@demo.example.org",
            "off1",
            &text("france", "austerlitz", "PHASE 1805-fall-turn-start\nMOVE FIRST"),
        ),
        &mut run,
    )
    .unwrap();
    run.flush().unwrap();
    assert!(on_record(&h));
}
