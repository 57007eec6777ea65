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
        let after = std::fs::read_to_string(history::entry_dir(g, &name).join("state-after.toml")).unwrap();
        let after = empereur::state::State::from_toml(&after).unwrap();
        let open = after.over.is_none();
        for (who, email) in &recipients {
            let player = who != "moderator";
            let id = match rec.kind.as_str() {
                // A player gets the report and the opening it made in
                // one phase mail; the moderator gets the report.
                "resolve" if player && open => outbox::stable_id(&["phase-mail", &game, &name, who]),
                "resolve" => outbox::stable_id(&["turn-report", &game, &name, who]),
                "undo" => outbox::stable_id(&["notice", &game, &name, who]),
                k => panic!("unexpected entry kind {k}"),
            };
            out.entry(email.clone()).or_default().push(id);
        }
        if open && rec.kind == "undo" {
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
    let id = outbox::stable_id(&["phase-mail", "demo", &names[&2], "france"]);
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
    let flat = opening.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("before this mail could go out"), "{opening}");
    assert!(!flat.contains("by the moderator"), "{opening}");
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
fn the_reminder_before_the_deadline_says_when_grace_ends_and_grace_adds_none() {
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
    // One reminder says all a late player needs: the deadline, when grace
    // ends, that orders in grace still count, and what applies after.
    let text = before[0].replace("=\r\n", "").replace("\r\n", "\n").replace('\n', " ");
    assert!(
        text.contains("Deadline: Tuesday 6 January 2026, 20:00 CET (19:00 UTC)"),
        "{text}"
    );
    assert!(
        text.contains("Grace ends: Wednesday 7 January 2026, 20:00 CET (19:00 UTC)"),
        "{text}"
    );
    assert!(text.contains("in the grace period, still count"), "{text}");
    assert!(text.contains("standing orders and defaults apply to France"), "{text}");
    // The next day, past the deadline, in grace: nothing resolves and no
    // second reminder repeats the first.
    let r = run_game(&g.root, &[], t("2026-01-07T08:00:00Z")).unwrap();
    assert!(r.resolved.is_empty());
    assert!(r.reminders.is_empty(), "{:?}", r.reminders);
    let all: Vec<String> = files(&g).into_iter().filter(|m| m.contains("no orders from")).collect();
    assert_eq!(all.len(), 1);
}

/// The campaign of issue 33, played by mail through the file transport.
mod by_mail {
    use super::*;

    /// What a player's mailbox holds, in the order delivered: (subject,
    /// body as text).
    pub fn mailbox(g: &GameDir, addr: &str) -> Vec<(String, String)> {
        delivered(g)
            .into_iter()
            .filter(|e| e.to.iter().any(|t| t == addr))
            .map(|e| {
                let raw = std::fs::read(outbox::sent_eml_path(g, &e.id)).unwrap();
                let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
                let body = m.body_text(0).unwrap_or_default().replace("\r\n", "\n");
                (m.subject().unwrap_or("").to_string(), body)
            })
            .collect()
    }

    /// The last mail in `addr`'s mailbox whose subject holds `subject`.
    pub fn last(g: &GameDir, addr: &str, subject: &str) -> String {
        mailbox(g, addr)
            .into_iter()
            .rev()
            .find(|(s, _)| s.contains(subject))
            .map(|(_, b)| b)
            .unwrap_or_else(|| panic!("no mail '{subject}' for {addr}: {:#?}", mailbox(g, addr)))
    }

    /// A player's mail to the game.
    pub fn mail(from: &str, id: &str, body: &str) -> Vec<u8> {
        format!(
            "From: {from}\r\nTo: gm@demo.example.org\r\nSubject: orders {id}\r\nMessage-ID: <{id}@players.example.org>\r\nDate: Mon, 05 Jan 2026 10:00:00 +0000\r\n\r\n{}",
            body.replace('\n', "\r\n")
        )
        .into_bytes()
    }

    /// Five players (3.0's five: Spain and the Ottoman Empire are NPCs),
    /// deadlines read in Paris, resolved by hand until France's Player
    /// Turn, the outbox cleared of what that took.
    pub fn game_at_frances_turn(root: &Path) -> GameDir {
        let text: String = DEMO_PLAYERS
            .split("[[player]]")
            .filter(|p| !p.contains("\"spain\"") && !p.contains("\"ottoman\""))
            .collect::<Vec<_>>()
            .join("[[player]]");
        let players = store::players::parse("players.toml", &text).unwrap();
        let dir = root.join("g");
        let o = NewOptions {
            dir: dir.clone(),
            scenario: "1805".into(),
            players: PathBuf::new(),
            options: vec![],
            id: Some("demo".into()),
            house_seating: false,
        };
        create_from(&o, players).unwrap();
        let g = GameDir::new(&dir);
        let mut c = g.load_config().unwrap();
        c.timezone = "Europe/Paris".into();
        store::atomic_write(&g.config(), c.to_toml().as_bytes()).unwrap();
        for _ in 0..12 {
            if g.load_state().unwrap().phase.to_string().ends_with("-france") {
                break;
            }
            resolve_by_hand(&g, t("2026-01-04T10:00:00Z"));
        }
        assert!(g.load_state().unwrap().phase.to_string().ends_with("-france"));
        g
    }

    pub fn phase(g: &GameDir) -> String {
        g.load_state().unwrap().phase.to_string()
    }

    pub const FRANCE: &str = "france@demo.example.org";
    pub const SPAIN: &str = "spain@demo.example.org";
    pub const GM: &str = "gm@demo.example.org";

    /// The raw text of the last mail in `addr`'s mailbox whose subject
    /// holds `subject`.
    pub fn raw_of(g: &GameDir, addr: &str, subject: &str) -> String {
        delivered(g)
            .into_iter()
            .rev()
            .find(|e| e.to.iter().any(|t| t == addr) && e.subject.contains(subject))
            .map(|e| std::fs::read_to_string(outbox::sent_eml_path(g, &e.id)).unwrap())
            .unwrap()
    }

    /// A mail server's report that mail to `dead` failed for good (RFC
    /// 3464), as Postfix writes it.
    pub fn bounce(id: &str, dead: &str) -> Vec<u8> {
        format!(
            "From: MAILER-DAEMON@mx.players.example.org (Mail Delivery System)\r\nTo: gm@demo.example.org\r\nSubject: Undelivered Mail Returned to Sender\r\nMessage-ID: <{id}@mx.players.example.org>\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status;\r\n\tboundary=\"{id}-B\"\r\n\r\n--{id}-B\r\nContent-Type: text/plain\r\n\r\nI'm sorry to have to inform you that your message could not be delivered.\r\n\r\n--{id}-B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.players.example.org\r\n\r\nFinal-Recipient: rfc822; {dead}\r\nOriginal-Recipient: rfc822;{dead}\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 <{dead}>: Recipient address rejected\r\n\r\n--{id}-B\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: gm@demo.example.org\r\nTo: {dead}\r\nSubject: Empereur demo: report\r\n\r\n--{id}-B--\r\n"
        )
        .into_bytes()
    }
    pub const PRUSSIA: &str = "prussia@demo.example.org";

    pub fn france(id: &str, orders: &str) -> Vec<u8> {
        mail(
            FRANCE,
            id,
            &format!("GAME demo\nPOWER France\nPASSWORD austerlitz\n{orders}"),
        )
    }

    pub fn prussia(id: &str, orders: &str) -> Vec<u8> {
        mail(
            PRUSSIA,
            id,
            &format!("GAME demo\nPOWER Prussia\nPASSWORD leipzig\n{orders}"),
        )
    }

    /// A mail's text above its signature (the anchors below it change
    /// with every game's seed): what the golden files hold.
    pub fn text(body: &str) -> String {
        body.split("\n--\n").next().unwrap().to_string()
    }

    pub fn flat(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

// Issue 33: a campaign by mail as players live it, asserted from what
// each mailbox holds. Points 2 (what counts as in) and 1 (a proposal
// holds the early close until answered, or until the deadline).
#[test]
fn a_campaign_by_mail_as_players_live_it() {
    use by_mail::*;
    let tmp = tempfile::tempdir().unwrap();
    let g = game_at_frances_turn(tmp.path());
    let turn = phase(&g);
    let t0 = t("2026-01-05T10:00:00Z");
    run_game(&g.root, &[], t0).unwrap();

    // A mail whose only order is rejected (with ENTROPY): France is not in,
    // and its acknowledgement says so at the top.
    let m = france("m1", "ENTROPY fortune favours\nMOVE French corps 99 -> Nowhere\n");
    let r = run_game(&g.root, &[m], t0 + Duration::minutes(5)).unwrap();
    assert!(r.resolved.is_empty());
    insta::assert_snapshot!("ack-rejected-only", text(&last(&g, FRANCE, "orders m1")));
    let ack = flat(&last(&g, FRANCE, "orders m1"));
    assert!(
        ack.starts_with(&format!(
            "France is NOT in for phase {turn}: no order for the phase was accepted"
        )),
        "{ack}"
    );
    assert!(
        ack.contains("Still holding the phase open: orders from France."),
        "{ack}"
    );
    // Standing orders alone: stored, but France is still not in, and 30
    // minutes later the phase has not closed.
    let m = france("m2", "STANDING WITHDRAW NEVER\n");
    run_game(&g.root, &[m], t0 + Duration::minutes(10)).unwrap();
    let ack = last(&g, FRANCE, "orders m2");
    insta::assert_snapshot!("ack-standing-only", text(&ack));
    assert!(
        flat(&ack).starts_with(&format!(
            "France is NOT in for phase {turn}: standing orders alone do not count."
        )),
        "{ack}"
    );
    let r = run_game(&g.root, &[], t0 + Duration::minutes(50)).unwrap();
    assert!(r.resolved.is_empty(), "standing orders alone closed the phase");

    // France proposes an alliance to Prussia: France is in, and the
    // answer holds the phase open.
    let m = france("m3", "PROPOSE ALLIANCE TO Prussia\n");
    run_game(&g.root, &[m], t0 + Duration::hours(1)).unwrap();
    insta::assert_snapshot!("ack-in-awaiting-an-answer", text(&last(&g, FRANCE, "orders m3")));
    let ack = flat(&last(&g, FRANCE, "orders m3"));
    assert!(ack.starts_with(&format!("France is IN for phase {turn}.")), "{ack}");
    assert!(
        ack.contains("Still holding the phase open: Prussia's answer to France's PROPOSE ALLIANCE TO Prussia"),
        "{ack}"
    );
    // Prussia's notice says by when to answer, the zone named.
    insta::assert_snapshot!("notice-answer-by", text(&last(&g, PRUSSIA, "France proposes")));
    let notice = flat(&last(&g, PRUSSIA, "France proposes"));
    assert!(notice.contains("ACCEPT ALLIANCE FROM France"), "{notice}");
    assert!(notice.contains("Answer by: "), "{notice}");
    assert!(notice.contains(" CET (") && notice.contains(" UTC)"), "{notice}");
    // Past the change-of-mind delay: still open, waiting for Prussia.
    let r = run_game(&g.root, &[], t0 + Duration::minutes(100)).unwrap();
    assert!(r.resolved.is_empty(), "closed while Prussia's answer was awaited");
    assert_eq!(phase(&g), turn);
    // Prussia answers: the wait is over (France's change-of-mind delay
    // passed long ago), and the same run resolves.
    let m = prussia("p1", "ACCEPT ALLIANCE FROM France\n");
    let before = mailbox(&g, PRUSSIA).len();
    let r = run_game(&g.root, &[m], t0 + Duration::hours(3)).unwrap();
    assert_eq!(r.resolved.len(), 1, "{r:?}");
    // One mail for Prussia from that run (issue 37): the phase mail, with
    // the answer to its mail at the top in the acknowledgement's words.
    assert_eq!(mailbox(&g, PRUSSIA).len(), before + 1, "{:#?}", mailbox(&g, PRUSSIA));
    let merged = last(&g, PRUSSIA, &format!("report of {turn}"));
    let answer = merged
        .strip_prefix("In answer to your mail \"orders p1\":\n\n")
        .and_then(|m| m.split_once(&format!("\n\nPhase {turn} has resolved since")))
        .map(|(a, _)| a.to_string())
        .unwrap_or_else(|| panic!("{merged}"));
    insta::assert_snapshot!("ack-answer-ends-the-wait", text(&answer));
    assert!(flat(&answer).contains("Nothing else holds the phase open"), "{answer}");
    assert!(flat(&merged).contains("France and Prussia are allied"), "{merged}");

    // Point 8: Prussia's address dies; the mail server's report (RFC
    // 3464) is never answered, recorded against Prussia, the moderator
    // told once, and `status` shows it.
    let now = t0 + Duration::hours(4);
    let before = delivered(&g).len();
    let r = run_game(&g.root, &[bounce("b1", PRUSSIA)], now).unwrap();
    assert!(r.failures.is_empty(), "{r:?}");
    let after = delivered(&g);
    assert_eq!(after.len(), before + 1, "only the moderator's note");
    assert!(after.iter().all(|e| !e.to.iter().any(|t| t.contains("mailer-daemon"))));
    let note = flat(&last(&g, GM, "is dead"));
    assert!(
        note.contains("mail to prussia@demo.example.org (Prussia's player) cannot be delivered"),
        "{note}"
    );
    assert!(note.contains("status: 5.1.1"), "{note}");
    run_game(&g.root, &[bounce("b2", PRUSSIA)], now + Duration::minutes(5)).unwrap();
    assert_eq!(
        mailbox(&g, GM).iter().filter(|(s, _)| s.contains("is dead")).count(),
        1,
        "told once"
    );
    let status = empereur::ops::workflow::status(&empereur::ops::workflow::GameOnly { game: g.root.clone() })
        .unwrap()
        .to_string();
    assert!(
        status.contains("dead address: prussia@demo.example.org (prussia): 5.1.1, since "),
        "{status}"
    );

    // Point 6: Spain is seated midway: one welcome (the state file, the
    // map, the last report, how to read the rest), not the history.
    let seat = empereur::ops::seat::SeatArgs {
        game: g.root.clone(),
        power: "spain".into(),
        name: "Charles's Player".into(),
        email: SPAIN.into(),
        password_from_mail: false,
        timezone: None,
        house_seating: true,
    };
    let seated = empereur::ops::seat::seat_game(&g, &seat, now + Duration::hours(1)).unwrap();
    assert!(seated.is_ok(), "{seated:?}");
    run_game(&g.root, &[], now + Duration::hours(1)).unwrap();
    let spain = mailbox(&g, SPAIN);
    assert_eq!(spain.len(), 1, "{spain:#?}");
    let (subject, body) = &spain[0];
    assert!(subject.contains("welcome, you play Spain"), "{subject}");
    let welcome = flat(body);
    assert!(
        welcome.contains(&format!("The last phase resolved, {turn}")),
        "{welcome}"
    );
    assert!(welcome.contains("France and Prussia are allied"), "{welcome}");
    assert!(welcome.contains("send HISTORY"), "{welcome}");
    let raw = raw_of(&g, SPAIN, "welcome");
    assert!(raw.contains("state-spain.toml"), "the state file is attached");
    assert!(raw.contains("filename=\"map-"), "the map is attached");
    // Nobody's mailbox holds an opening that says the moderator resolved
    // a phase nobody resolved by hand in this campaign's runs.
    for who in [FRANCE, PRUSSIA, SPAIN] {
        assert!(
            !mailbox(&g, who)
                .iter()
                .any(|(_, b)| b.contains("resolved by the moderator")),
            "{who}"
        );
    }
}
