//! READY and WAIT by mail (orders/README.md, "Ready and wait"): each
//! mail goes through `run` (ingest, acknowledgement, early close) with an
//! injected clock, and the tests read what the players' mailboxes hold.
#![allow(clippy::disallowed_methods)] // tests use files freely

use crate::table_common::{ack, flat, orders, t};
use empereur::ops::games::{Listed, Standing, overview};
use empereur::ops::run::run_game;
use empereur::store::GameDir;
use std::path::Path;

/// The demo's seven players, deadlines at 20:00 Paris time; opened on
/// Monday 2026-01-05 10:00 UTC, so the Turn Start (France alone orders,
/// 4.6) is due Tuesday 20:00 Paris = 19:00 UTC.
fn game(root: &Path) -> GameDir {
    crate::table_common::game(root, "", |_| {})
}

fn france(id: &str, lines: &str) -> Vec<u8> {
    orders("france", id, lines)
}

#[test]
fn ready_alone_counts_france_in_as_pass_and_closes_the_phase_without_the_delay() {
    // The same mail without READY waits the 30 minutes for a change of mind.
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    let r = run_game(&g.root, &[france("p1", "PASS")], t("2026-01-05T11:00:00Z")).unwrap();
    assert!(r.resolved.is_empty(), "PASS alone waits for the delay");
    let r = run_game(&g.root, &[], t("2026-01-05T11:29:00Z")).unwrap();
    assert!(r.resolved.is_empty());

    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    let r = run_game(&g.root, &[france("r1", "READY")], t("2026-01-05T11:00:00Z")).unwrap();
    assert_eq!(
        r.resolved.len(),
        1,
        "READY from the only power that must order closes at once"
    );
    let a = ack(&g, "r1");
    assert!(a.contains("  ok  READY"), "{a}");
    assert!(flat(&a).contains("(1 accepted, 0 rejected;"), "{a}");
    assert!(
        flat(&a).contains("READY counts you in with no orders, as PASS does"),
        "{a}"
    );
    assert!(flat(&a).contains("France is IN for phase 1805-fall-turn-start."), "{a}");
    insta::assert_snapshot!("ack-ready-alone", a);
}

#[test]
fn wait_holds_an_all_in_phase_until_the_deadline_and_status_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    run_game(&g.root, &[france("w1", "PASS\nWAIT")], t("2026-01-05T11:00:00Z")).unwrap();
    let a = ack(&g, "w1");
    assert!(flat(&a).contains("(1 accepted, 0 rejected;"), "{a}");
    assert!(a.contains("  ok  WAIT"), "{a}");
    assert!(
        flat(&a).contains("Still holding the phase open: your WAIT (until the deadline)."),
        "{a}"
    );
    insta::assert_snapshot!("ack-pass-and-wait", a);
    // Past the change-of-mind delay, up to the last minute before the
    // deadline (Tue 20:00 Paris = 19:00 UTC): held.
    for at in ["2026-01-05T11:31:00Z", "2026-01-06T18:59:00Z"] {
        let r = run_game(&g.root, &[], t(at)).unwrap();
        assert!(r.resolved.is_empty(), "held at {at}");
    }
    run_game(&g.root, &[france("s1", "STATUS")], t("2026-01-06T18:59:30Z")).unwrap();
    let s = ack(&g, "s1");
    assert!(
        flat(&s).contains("Now: everyone is in; a WAIT holds the phase until the deadline"),
        "{s}"
    );
    assert!(flat(&s).contains("Your WAIT is in force"), "{s}");
    // A mail of commands alone keeps the WAIT (STATUS says it, once).
    assert_eq!(flat(&s).matches("WAIT is").count(), 1, "{s}");
    // The moderator's overview names who waits.
    let listed = overview(tmp.path(), t("2026-01-06T18:59:30Z")).unwrap();
    match &listed[..] {
        [Listed::Game(l)] => assert_eq!(
            l.standing,
            Standing::Held {
                by: vec![empereur::ids::PowerId::France]
            }
        ),
        other => panic!("{other:?}"),
    }
    // At the deadline it closes as it would have: nobody is late.
    let r = run_game(&g.root, &[], t("2026-01-06T19:00:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
    assert!(r.late.is_empty());
}

#[test]
fn ready_lifts_a_wait_and_new_orders_withdraw_a_ready() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    run_game(&g.root, &[france("w1", "PASS\nWAIT")], t("2026-01-05T11:00:00Z")).unwrap();
    // New orders keep the WAIT, and the acknowledgement says it stands.
    run_game(&g.root, &[france("w2", "MOVE FIRST")], t("2026-01-05T12:00:00Z")).unwrap();
    let a = ack(&g, "w2");
    assert!(flat(&a).contains("WAIT is still in force for France"), "{a}");
    let r = run_game(&g.root, &[], t("2026-01-05T13:00:00Z")).unwrap();
    assert!(r.resolved.is_empty(), "still held");
    // READY then new orders: the READY is withdrawn, the delay runs again.
    // (Austria's mail in the same run holds nothing: it need not order.)
    let austria = orders("austria", "x1", "WAIT");
    let r = run_game(
        &g.root,
        &[austria, france("r1", "READY"), france("r2", "PASS")],
        t("2026-01-05T14:00:00Z"),
    )
    .unwrap();
    assert!(r.resolved.is_empty(), "the READY was withdrawn by later orders");
    let x = ack(&g, "x1");
    assert!(flat(&x).contains("Austria does not have to order in phase"), "{x}");
    let a = ack(&g, "r1");
    assert!(flat(&a).contains("READY is in force for France"), "{a}");
    assert!(!flat(&a).contains("as PASS does"), "orders were stored already: {a}");
    let a = ack(&g, "r2");
    assert!(
        flat(&a).contains("Your READY of phase 1805-fall-turn-start is withdrawn"),
        "{a}"
    );
    let r = run_game(&g.root, &[], t("2026-01-05T14:29:00Z")).unwrap();
    assert!(r.resolved.is_empty(), "the 30 minutes run from the new orders");
    // READY again, alone: the orders stored stay, the phase closes now.
    let r = run_game(&g.root, &[france("r3", "READY")], t("2026-01-05T14:10:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
    let a = ack(&g, "r3");
    assert!(flat(&a).contains("It held no orders, so your orders for phase"), "{a}");
    assert!(a.contains("  ok  READY"), "{a}");
}

#[test]
fn ready_and_wait_in_one_mail_is_a_contradiction_and_a_mail_for_another_phase_says_neither() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    run_game(&g.root, &[france("c1", "PASS\nREADY\nWAIT")], t("2026-01-05T11:00:00Z")).unwrap();
    let a = ack(&g, "c1");
    assert!(a.contains("  NO  WAIT"), "{a}");
    assert!(flat(&a).contains("READY and WAIT in one message: which is it?"), "{a}");
    assert!(
        flat(&a).contains("READY is in force for France"),
        "the first stands: {a}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    run_game(
        &g.root,
        &[france("o1", "PHASE 1805-spring-turn-start\nWAIT")],
        t("2026-01-05T11:00:00Z"),
    )
    .unwrap();
    let a = ack(&g, "o1");
    assert!(flat(&a).contains("NOT taken as orders"), "{a}");
    assert!(!flat(&a).contains("WAIT is in force"), "{a}");
    assert!(g.load_schedule().unwrap().readiness.is_empty());
}
