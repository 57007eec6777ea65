//! A campaign played through `run` on an injected clock, with phases
//! resolved by hand, by autoplay and rolled back in between: every player
//! receives every report of their power and every opening, in order, each
//! exactly once.
#![allow(clippy::disallowed_methods)] // tests use files freely

use chrono::{DateTime, Duration, Utc};
use empereur::mail::outbox::{self, Envelope};
use empereur::ops::autoplay::autoplay;
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::mailing;
use empereur::ops::moderate::undo_game;
use empereur::ops::new::{NewOptions, create_from};
use empereur::ops::resolve::{ResolveOptions, Resolved, resolve_game};
use empereur::ops::run::run_game;
use empereur::store::{self, GameDir, history};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn game(root: &Path) -> GameDir {
    let players = store::players::parse("players.toml", DEMO_PLAYERS).unwrap();
    let dir = root.join("g");
    let o = NewOptions {
        dir: dir.clone(),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: vec![],
        id: Some("demo".into()),
        house_seating: true,
    };
    create_from(&o, players).unwrap();
    GameDir::new(&dir)
}

fn resolve_by_hand(g: &GameDir, when: DateTime<Utc>) {
    let opts = ResolveOptions {
        now: Some(when.format("%Y-%m-%dT%H:%M:%SZ").to_string()),
        ..ResolveOptions::default()
    };
    assert!(matches!(resolve_game(g, &opts).unwrap(), Resolved::Done(_)));
}

/// The messages delivered, in delivery order (the journal's `send:`
/// lines), with their envelopes.
fn delivered(g: &GameDir) -> Vec<Envelope> {
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    journal
        .lines()
        .filter_map(|l| {
            let rest = l.split_once(" send: ")?.1;
            let (id, tail) = rest.split_once(' ')?;
            tail.contains(" accepted").then(|| id.to_string())
        })
        .map(|id| outbox::read_envelope(&outbox::sent_env_path(g, &id)).unwrap())
        .collect()
}

/// What each recipient should have received, in order: for the first
/// phase its opening; then for each history entry, its report (a
/// resolution) or notice (an undo), then the opening of the phase it
/// opened, unless the game ended.
fn expected(g: &GameDir) -> BTreeMap<String, Vec<String>> {
    let config = g.load_config().unwrap();
    let game = config.game.clone();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let first_phase = {
        let names = history::list(g).unwrap();
        let first = history::entry_dir(g, &names[&1]).join("state-before.toml");
        empereur::state::State::from_toml(&std::fs::read_to_string(first).unwrap())
            .unwrap()
            .phase
            .to_string()
    };
    for p in &config.players {
        out.entry(p.email.clone()).or_default().push(outbox::stable_id(&[
            "phase-opening",
            &game,
            &first_phase,
            "start",
            p.power.id(),
        ]));
    }
    for (_, name) in history::list(g).unwrap() {
        let (rec, _) = history::read_entry(g, &name).unwrap();
        let mut recipients: Vec<(String, String)> = config
            .players
            .iter()
            .map(|p| (p.power.id().to_string(), p.email.clone()))
            .collect();
        recipients.push(("moderator".into(), config.moderator.email.clone()));
        for (who, email) in &recipients {
            let id = match rec.kind.as_str() {
                "resolve" => outbox::stable_id(&["turn-report", &game, &name, who]),
                "undo" => outbox::stable_id(&["notice", &game, &name, who]),
                k => panic!("unexpected entry kind {k}"),
            };
            out.entry(email.clone()).or_default().push(id);
        }
        let after = std::fs::read_to_string(history::entry_dir(g, &name).join("state-after.toml")).unwrap();
        let after = empereur::state::State::from_toml(&after).unwrap();
        if after.over.is_none() {
            for p in &config.players {
                out.entry(p.email.clone()).or_default().push(outbox::stable_id(&[
                    "phase-opening",
                    &game,
                    &after.phase.to_string(),
                    &name,
                    p.power.id(),
                ]));
            }
        }
    }
    out
}

#[test]
fn every_entry_reaches_every_player_once_and_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    let mut now = t("2026-01-05T10:00:00Z");
    // The first run opens the first phase.
    run_game(&g.root, &[], now).unwrap();
    // Two phases resolved by hand between runs.
    now += Duration::hours(1);
    resolve_by_hand(&g, now);
    now += Duration::hours(1);
    resolve_by_hand(&g, now);
    now += Duration::hours(1);
    let r = run_game(&g.root, &[], now).unwrap();
    assert!(r.resolved.is_empty());
    // Autoplay, then the moderator rolls the last one back.
    autoplay(&g, 3, 5, Some("2026-01-05T14:00:00Z")).unwrap();
    undo_game(&g, "the wrong corps moved").unwrap();
    // Runs through deadlines and grace: run resolves on its own.
    for _ in 0..6 {
        now += Duration::hours(40);
        run_game(&g.root, &[], now).unwrap();
    }
    // One more by hand, then the moderator mails without waiting for cron.
    resolve_by_hand(&g, now);
    let q = {
        let _lock = g.lock().unwrap();
        mailing::mail_pending(&g, &empereur::report::Templates::load(&g.root).unwrap(), now).unwrap()
    };
    assert!(!q.messages.is_empty());
    now += Duration::minutes(5);
    run_game(&g.root, &[], now).unwrap();
    // And a run with nothing new mails nothing again.
    now += Duration::minutes(5);
    let r = run_game(&g.root, &[], now).unwrap();
    assert_eq!(r.sent, 0);
    assert!(outbox::queued(&g).unwrap().is_empty());

    let head = history::read_head(&g).unwrap();
    assert!(head.entries >= 8, "only {} entries", head.entries);
    let want = expected(&g);
    let mut got: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for env in delivered(&g) {
        let campaign = env.subject.contains(": report of ")
            || env.subject.contains(" is open")
            || env.subject.contains(" is rolled back");
        if campaign {
            for to in &env.to {
                got.entry(to.clone()).or_default().push(env.id.clone());
            }
        }
    }
    assert_eq!(
        got.len(),
        want.len(),
        "recipients: {:?}",
        got.keys().collect::<Vec<_>>()
    );
    for (who, ids) in &want {
        let mine = got.get(who).cloned().unwrap_or_default();
        assert_eq!(
            &mine, ids,
            "{who}: received (left) vs every report and opening in order (right)"
        );
    }
    // The report of an entry resolved by hand is of that entry, not of
    // the state when it was mailed: it names the phase it opened.
    let names = history::list(&g).unwrap();
    let (rec, _) = history::read_entry(&g, &names[&2]).unwrap();
    let id = outbox::stable_id(&["turn-report", "demo", &names[&2], "france"]);
    let body = std::fs::read_to_string(outbox::sent_eml_path(&g, &id)).unwrap();
    assert!(
        body.contains(&format!("Next phase: {}", rec.next_phase.unwrap())),
        "{body}"
    );
}

#[test]
fn resend_queues_a_fresh_copy_of_a_powers_report_and_opening() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    let now = t("2026-01-05T10:00:00Z");
    run_game(&g.root, &[], now).unwrap();
    resolve_by_hand(&g, now);
    resolve_by_hand(&g, now);
    run_game(&g.root, &[], now + Duration::minutes(1)).unwrap();
    assert!(outbox::queued(&g).unwrap().is_empty());
    let names = history::list(&g).unwrap();
    let _lock = g.lock().unwrap();
    // Entry 1 for Austria: its report and the (since closed) opening.
    let ids = mailing::resend_game(&g, empereur::ids::PowerId::Austria, Some("1"), now + Duration::hours(1)).unwrap();
    assert_eq!(ids.len(), 2, "{ids:?}");
    let report = std::fs::read_to_string(outbox::eml_path(&g, &ids[0])).unwrap();
    assert!(report.contains("(resent)"), "{report}");
    assert!(report.contains("austria@demo.example.org"), "{report}");
    let opening = std::fs::read_to_string(outbox::eml_path(&g, &ids[1])).unwrap();
    assert!(opening.contains("before this mail could go out"), "{opening}");
    assert!(
        opening.contains(&names[&2]),
        "names the entry that closed it: {opening}"
    );
    // --last (the default): the open phase's opening has its deadline.
    let ids = mailing::resend_game(&g, empereur::ids::PowerId::Austria, None, now + Duration::hours(2)).unwrap();
    let opening = std::fs::read_to_string(outbox::eml_path(&g, ids.last().unwrap())).unwrap();
    assert!(opening.contains("Deadline: "), "{opening}");
    assert!(opening.contains("Order template"), "{opening}");
    // Nothing for an NPC or an entry that does not exist.
    assert!(mailing::resend_game(&g, empereur::ids::PowerId::Austria, Some("9"), now).is_err());
}

/// Every mail the file transport delivered, as text.
fn files(g: &GameDir) -> Vec<String> {
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

#[test]
fn a_reminder_in_grace_says_so_and_when_the_phase_resolves() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    let mut c = g.load_config().unwrap();
    c.timezone = "Europe/Paris".into();
    c.deadlines.time_of_day = Some("20:00".into());
    store::atomic_write(&g.config(), c.to_toml().as_bytes()).unwrap();
    // Deadline Tue 2026-01-06 20:00 CET; grace 24 h.
    run_game(&g.root, &[], t("2026-01-05T10:00:00Z")).unwrap();
    let r = run_game(&g.root, &[], t("2026-01-06T02:30:00Z")).unwrap();
    assert_eq!(r.reminders.len(), 1);
    let before: Vec<String> = files(&g).into_iter().filter(|m| m.contains("no orders from")).collect();
    assert_eq!(before.len(), 1);
    assert!(!before[0].contains("grace"), "{}", before[0]);
    // The next day, past the deadline: a reminder in grace.
    let r = run_game(&g.root, &[], t("2026-01-07T08:00:00Z")).unwrap();
    assert!(r.resolved.is_empty());
    assert_eq!(r.reminders.len(), 1, "one reminder a day in grace");
    let grace: Vec<String> = files(&g)
        .into_iter()
        .filter(|m| m.contains("no orders from") && m.contains("grace"))
        .collect();
    assert_eq!(grace.len(), 1);
    let text = grace[0].replace("=\r\n", "").replace("\r\n", "\n").replace('\n', " ");
    assert!(text.contains("has passed"), "{text}");
    assert!(text.contains("resolves at Wed 2026-01-07 20:00 CET"), "{text}");
}
