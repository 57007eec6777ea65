//! `empereur run` through deadlines with an injected clock (no sleeping):
//! reminders in the game's time zone, early processing after the
//! change-of-mind delay, late powers and their defaults, pause.
#![allow(clippy::disallowed_methods)] // tests use files freely

use chrono::{DateTime, Utc};
use empereur::ids::PowerId;
use empereur::ops::run::run_game;
use empereur::store::{GameDir, history, submission};
use std::path::Path;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// The demo's seven players in a new game, deadlines at 20:00 Paris time.
fn game(root: &Path) -> GameDir {
    crate::table_common::created(root, "", &[], |_| {})
}

/// Every mail the file transport delivered, as text.
fn delivered(g: &GameDir) -> Vec<String> {
    let d = g.root.join("mail/files");
    let mut v: Vec<String> = match std::fs::read_dir(&d) {
        Ok(rd) => rd
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

fn submit_nothing(g: &GameDir, power: PowerId, when: &str) {
    let state = g.load_state().unwrap();
    let sub = submission::Submission {
        power,
        phase: state.phase,
        by: "moderator".into(),
        received: when.into(),
        entropy: Some("test".into()),
        passed: false,
        orders: vec![],
    };
    submission::save(g, &sub).unwrap();
}

#[test]
fn a_reminder_goes_out_at_the_right_local_time_then_the_late_power_gets_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    // Monday 10:00 UTC: the Turn Start opens; 24 h later is Tuesday 11:00
    // in Paris, snapped to 20:00 Paris = 19:00 UTC.
    let r = run_game(&g.root, &[], t("2026-01-05T10:00:00Z")).unwrap();
    assert!(r.resolved.is_empty() && r.reminders.is_empty());
    let opening = delivered(&g);
    assert_eq!(opening.len(), 7, "one phase-opening mail per player");
    assert!(
        opening
            .iter()
            .any(|m| m.contains("Tuesday 6 January 2026, 20:00 CET (19:00 UTC)")),
        "{}",
        opening[0]
    );
    // The first reminder is due 24 h before the deadline but never in the
    // first half of the phase (33 h long): at Tuesday 02:30 UTC.
    let r = run_game(&g.root, &[], t("2026-01-06T02:29:00Z")).unwrap();
    assert!(r.reminders.is_empty());
    // Then France, which must order at Turn Start, is reminded once.
    let r = run_game(&g.root, &[], t("2026-01-06T02:30:00Z")).unwrap();
    assert_eq!(r.reminders, vec![PowerId::France]);
    let r = run_game(&g.root, &[], t("2026-01-06T03:00:00Z")).unwrap();
    assert!(r.reminders.is_empty(), "one reminder, not one a run");
    let reminders: Vec<String> = delivered(&g)
        .into_iter()
        .filter(|m| m.contains("reminder") || m.contains("no orders from"))
        .collect();
    assert_eq!(reminders.len(), 1);
    assert!(reminders[0].contains("france@demo.example.org"), "{}", reminders[0]);
    // Issue 37: that one reminder says what a late player needs to know
    // (the deadline, when grace ends, what applies then), so the first
    // day of grace brings no second mail saying the same.
    let text = reminders[0]
        .replace("=\r\n", "")
        .replace("\r\n", " ")
        .replace('\n', " ");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "Deadline: Tuesday 6 January 2026, 20:00 CET (19:00 UTC)",
        "Grace ends: Wednesday 7 January 2026, 20:00 CET (19:00 UTC)",
        "Orders that arrive after it, in the grace period, still count",
        "standing orders and defaults apply to France.",
    ] {
        assert!(flat.contains(said), "{said:?} not in {flat}");
    }
    // Past the deadline, inside grace (24 h): not yet, and no reminder.
    let r = run_game(&g.root, &[], t("2026-01-06T19:30:00Z")).unwrap();
    assert!(r.resolved.is_empty() && r.reminders.is_empty(), "{r:?}");
    let r = run_game(&g.root, &[], t("2026-01-07T08:00:00Z")).unwrap();
    assert!(r.resolved.is_empty() && r.reminders.is_empty(), "{r:?}");
    // Grace over: resolved with France's defaults, and the report says so.
    let r = run_game(&g.root, &[], t("2026-01-07T19:00:00Z")).unwrap();
    assert_eq!(r.late, vec![PowerId::France]);
    assert_eq!(r.resolved, vec!["0001-1805-fall-turn-start".to_string()]);
    let outcomes = std::fs::read_to_string(history::entry_dir(&g, &r.resolved[0]).join("outcomes.toml")).unwrap();
    assert!(
        outcomes
            .contains("France sent no orders by the deadline; its standing orders and the documented defaults applied"),
        "{outcomes}"
    );
    assert_eq!(g.load_schedule().unwrap().lateness.get(&PowerId::France), Some(&1));
    let reports: Vec<String> = delivered(&g)
        .into_iter()
        .filter(|m| m.contains("France sent no orders"))
        .collect();
    assert!(!reports.is_empty(), "the turn reports tell everyone");
    let mails_to_france = delivered(&g)
        .into_iter()
        .filter(|m| m.contains("no orders from France"))
        .count();
    assert_eq!(mails_to_france, 1, "one reminder over the whole phase");
}

#[test]
fn a_power_first_reminded_in_grace_is_told_the_deadline_passed() {
    // Issue 37: only a reminder sent before the deadline stands for the
    // first day of grace. When no run came between the first reminder's
    // slot and the deadline (cron stopped, say), the power is reminded in
    // grace, told the deadline has passed.
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    run_game(&g.root, &[], t("2026-01-05T10:00:00Z")).unwrap();
    let r = run_game(&g.root, &[], t("2026-01-06T19:30:00Z")).unwrap();
    assert_eq!(r.reminders, vec![PowerId::France], "{r:?}");
    let text = delivered(&g)
        .into_iter()
        .find(|m| m.contains("no orders from France"))
        .unwrap();
    let flat = text
        .replace("=\r\n", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains("has passed: the phase is in its grace period"), "{flat}");
    assert!(!flat.contains("Grace ends:"), "{flat}");
}

#[test]
fn early_processing_waits_for_the_change_of_mind_delay() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    run_game(&g.root, &[], t("2026-01-05T10:00:00Z")).unwrap();
    submit_nothing(&g, PowerId::France, "2026-01-05T11:00:00Z");
    // Everyone who must order is in, but the 30-minute delay has not passed.
    let r = run_game(&g.root, &[], t("2026-01-05T11:20:00Z")).unwrap();
    assert!(r.resolved.is_empty());
    let r = run_game(&g.root, &[], t("2026-01-05T11:30:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
    assert!(r.late.is_empty());
    // Running again at once does nothing more: idempotent.
    let before = std::fs::read(g.state()).unwrap();
    let r = run_game(&g.root, &[], t("2026-01-05T11:31:00Z")).unwrap();
    assert!(r.resolved.is_empty());
    assert_eq!(std::fs::read(g.state()).unwrap(), before);
}

#[test]
fn a_paused_game_does_not_resolve() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    run_game(&g.root, &[], t("2026-01-05T10:00:00Z")).unwrap();
    let mut c = g.load_clock().unwrap().unwrap();
    c.paused_since = Some(t("2026-01-05T12:00:00Z"));
    g.save_clock(&c).unwrap();
    let r = run_game(&g.root, &[], t("2026-02-05T10:00:00Z")).unwrap();
    assert!(r.resolved.is_empty() && r.reminders.is_empty());
}

#[test]
fn a_second_named_by_one_mail_is_on_record_for_the_next_mail_of_the_same_run() {
    // The schedule is read once a run: a SECOND line of one message must
    // be seen by the messages after it in the same run (no stale copy).
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    run_game(&g.root, &[], t("2026-01-05T10:00:00Z")).unwrap();
    let first = "From: austria@demo.example.org\r\nTo: gm@demo.example.org\r\nSubject: deputy\r\nMessage-ID: <deputy-1@demo.example.org>\r\n\r\nGAME demo\r\nPOWER Austria\r\nPASSWORD aspern\r\nSECOND deputy@demo.example.org\r\n";
    let second = "From: deputy@demo.example.org\r\nTo: gm@demo.example.org\r\nSubject: orders\r\nMessage-ID: <deputy-2@demo.example.org>\r\n\r\nGAME demo\r\nPOWER Austria\r\nPASSWORD aspern\r\nNO ORDERS\r\n";
    run_game(
        &g.root,
        &[first.as_bytes().to_vec(), second.as_bytes().to_vec()],
        t("2026-01-05T11:00:00Z"),
    )
    .unwrap();
    let acks: Vec<String> = delivered(&g)
        .into_iter()
        .filter(|m| m.contains("deputy-2@demo.example.org"))
        .collect();
    assert!(!acks.is_empty(), "the deputy's mail is answered");
    for a in &acks {
        assert!(!a.contains("not from the address on record"), "{a}");
    }
}

#[test]
fn an_absence_announced_by_mail_moves_the_deadline_within_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    run_game(&g.root, &[], t("2026-01-05T10:00:00Z")).unwrap();
    // Deadline Tue 2026-01-06 20:00 Paris. Austria will be away Tue to Thu.
    let mail = "From: austria@demo.example.org\r\nTo: gm@demo.example.org\r\nSubject: away\r\nMessage-ID: <away-1@demo.example.org>\r\n\r\nGAME demo\r\nPOWER Austria\r\nPASSWORD aspern\r\nABSENT 2026-01-06 TO 2026-01-08\r\nSECOND deputy@demo.example.org\r\n";
    run_game(&g.root, &[mail.as_bytes().to_vec()], t("2026-01-05T11:00:00Z")).unwrap();
    let s = g.load_schedule().unwrap();
    assert_eq!(s.absences.len(), 1);
    assert_eq!(
        s.seconds.get(&PowerId::Austria).map(String::as_str),
        Some("deputy@demo.example.org")
    );
    let ack = delivered(&g)
        .into_iter()
        .find(|m| m.contains("Absence noted from 2026-01-06 to 2026-01-08"))
        .expect("the ack confirms");
    // A message of such lines only is not a submission: Austria's orders
    // for the phase stay as they were (none).
    assert!(!submission::load_all(&g).unwrap().contains_key(&PowerId::Austria));
    assert!(
        ack.contains("It held no") && !ack.contains("were received and stored"),
        "{ack}"
    );
    // The deadline moves past the absence (Fri 00:00 Paris), snapped to
    // 20:00: Friday 9 January 20:00 CET, and the ack shows the new one.
    assert!(ack.contains("Friday 9 January 2026, 20:00 CET (19:00 UTC)"), "{ack}");
    // So the old deadline + grace no longer resolves the phase.
    let r = run_game(&g.root, &[], t("2026-01-07T20:00:00Z")).unwrap();
    assert!(r.resolved.is_empty());
    let r = run_game(&g.root, &[], t("2026-01-10T20:00:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
}
