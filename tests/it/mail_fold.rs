//! Issue 37: one mail where two would leave together for the same
//! player. The answer to a player's mail, not sent yet when the phase
//! that mail was for resolves, and that phase's mail go out as one: the
//! answer's words at the top (accepted or refused), then the report and
//! the phase now open. Driven by mail, asserted from what each mailbox
//! holds.
#![allow(clippy::disallowed_methods)] // tests use files freely

use super::mail_loop::{AUSTRIA, FRANCE, GM, flat, game_at_frances_turn, mail, mailbox, phase, t};
use chrono::Duration;
use empereur::mail::outbox;
use empereur::ops::run::run_game;
use empereur::store::{self, GameDir};

/// The raw bytes of every mail the file transport delivered to `addr`.
fn delivered_raw(g: &GameDir, addr: &str) -> Vec<String> {
    let files = g.root.join("mail").join("files");
    let mut out = Vec::new();
    for e in std::fs::read_dir(files).unwrap() {
        let raw = std::fs::read_to_string(e.unwrap().path()).unwrap();
        let m = mail_parser::MessageParser::default().parse(raw.as_bytes()).unwrap();
        if m.to().is_some_and(|to| to.iter().any(|a| a.address() == Some(addr))) {
            out.push(raw);
        }
    }
    out
}

/// France's phase opened by a run at `t0`, then France's last orders
/// (mail `id`) delivered by a pipe a minute later, so their answer is
/// queued, not sent: the game, how many mails France held before, `t0`.
fn frances_last_orders_piped(id: &str) -> (tempfile::TempDir, GameDir, usize, chrono::DateTime<chrono::Utc>) {
    let tmp = tempfile::tempdir().unwrap();
    let g = game_at_frances_turn(tmp.path());
    let turn = phase(&g);
    let t0 = t("2026-01-05T10:00:00Z");
    run_game(&g.root, &[], t0).unwrap();
    let before = mailbox(&g, FRANCE).len();
    let file = tmp.path().join(format!("{id}.eml"));
    let orders = format!("PHASE {turn}\nMOVE corps 8 -> Lombardy\nREADY\n");
    std::fs::write(&file, mail(FRANCE, "France", "austerlitz", id, &orders)).unwrap();
    let args = empereur::ops::ingest::IngestArgs {
        game: Some(g.root.clone()),
        games: None,
        maildir: None,
        mbox: None,
        files: vec![file],
    };
    empereur::ops::ingest::ingest(&args, t0 + Duration::minutes(1)).unwrap();
    (tmp, g, before, t0)
}

fn no_change_of_mind_delay(g: &GameDir) {
    let mut c = g.load_config().unwrap();
    c.deadlines.change_of_mind_minutes = 0;
    store::atomic_write(&g.config(), c.to_toml().as_bytes()).unwrap();
}

// The last orders of the phase, with no change-of-mind delay, resolve it
// in the run that takes them: France gets one mail saying its orders were
// received (as the acknowledgement says it) and what the phase did; the
// acknowledgement never goes out alone; no other power reads France's.
#[test]
fn the_answer_to_the_last_orders_rides_at_the_top_of_the_phase_mail() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game_at_frances_turn(tmp.path());
    no_change_of_mind_delay(&g);
    let turn = phase(&g);
    let t0 = t("2026-01-05T10:00:00Z");
    run_game(&g.root, &[], t0).unwrap();
    let before = mailbox(&g, FRANCE).len();
    let orders = format!("PHASE {turn}\nMOVE corps 8 -> Lombardy\nMOVE corps 1 -> Nowhere\n");
    let m = mail(FRANCE, "France", "austerlitz", "f1", &orders);
    let r = run_game(&g.root, &[m], t0 + Duration::minutes(5)).unwrap();
    assert_eq!(r.resolved.len(), 1, "{r:?}");
    let got = mailbox(&g, FRANCE);
    assert_eq!(got.len(), before + 1, "one mail for France from this run: {got:#?}");
    let (subject, body) = got.last().unwrap();
    assert!(
        subject.starts_with(&format!("Empereur demo: report of {turn} for France; phase ")),
        "{subject}"
    );
    assert!(
        body.starts_with("In answer to your mail \"orders f1\":\n\nFrance is IN"),
        "{body}"
    );
    let text = flat(body);
    // What the acknowledgement says: received, what was accepted, what not.
    for said in [
        &format!("Your orders for France in game demo, phase {turn}, were received and stored."),
        "Orders as understood (1 accepted, 1 rejected;",
        "ok MOVE French corps 8 -> Lombardy",
        "NO MOVE corps 1 -> Nowhere",
        "Receipt (SHA-256 of what was stored):",
        &format!("Phase {turn} has resolved since: its report follows, then the phase now open."),
        // What the phase did, and the phase now open.
        &format!("Game demo: report of phase {turn} for France."),
        "French corps 8 moved from Piedmont to Lombardy",
        "to move (phase ",
    ] {
        assert!(text.contains(said), "missing '{said}': {body}");
    }
    // The answer comes first; the acknowledgement's footer, which invites
    // new orders for a phase now resolved, and its anchors do not come.
    assert!(!text.contains("Reply with a complete new set"), "{body}");
    assert_eq!(body.matches("Empereur-Chain:").count(), 1, "{body}");
    // It answers France's mail: threaded under it, auto-replied (RFC 3834).
    let raw: Vec<String> = delivered_raw(&g, FRANCE)
        .into_iter()
        .filter(|r| r.contains("In-Reply-To: <f1@players.example.org>"))
        .collect();
    assert_eq!(raw.len(), 1, "one mail answers f1");
    assert!(raw[0].contains("Auto-Submitted: auto-replied"));
    assert!(raw[0].contains("References: <f1@players.example.org>"));
    // Another power's phase mail of the same run answers nothing and
    // holds none of France's orders.
    let (_, austria) = mailbox(&g, AUSTRIA).pop().unwrap();
    assert!(austria.starts_with("Game demo: report of phase"), "{austria}");
    assert!(
        !austria.contains("Nowhere") && !austria.contains("In answer"),
        "{austria}"
    );
    for r in delivered_raw(&g, AUSTRIA).iter().chain(&delivered_raw(&g, GM)) {
        assert!(!r.contains("f1@players.example.org"), "{r}");
    }
    // The acknowledgement is kept in sent/, marked as inside the phase
    // mail, and the journal says so.
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    let line = journal.lines().find(|l| l.contains(" fold: ")).expect("a fold line");
    let id = line.split(" fold: ").nth(1).unwrap().split(' ').next().unwrap();
    let env = outbox::read_envelope(&outbox::sent_env_path(&g, id)).unwrap();
    assert!(env.folded_into.is_some(), "{env:?}");
    assert!(env.sent.is_none());
}

// Orders refused in the run that resolves the phase after grace: the
// player learns it at once, in the refusal's words, at the top of the
// phase mail that says the defaults applied.
#[test]
fn a_refusal_in_the_run_that_resolves_is_read_first() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game_at_frances_turn(tmp.path());
    // Opened after the mail below was written: without a PHASE line it
    // is taken as an old mail sent again.
    let t0 = t("2026-01-06T10:00:00Z");
    run_game(&g.root, &[], t0).unwrap();
    let c = g.load_config().unwrap();
    let clock = g.load_clock().unwrap().unwrap();
    let deadline = clock.deadline(t0, &c.deadlines, c.tz(), &[]);
    let after_grace = deadline + Duration::hours(i64::from(c.deadlines.grace_hours)) + Duration::minutes(5);
    let before = mailbox(&g, FRANCE).len();
    let m = mail(FRANCE, "France", "austerlitz", "f2", "MOVE corps 8 -> Lombardy\n");
    let r = run_game(&g.root, &[m], after_grace).unwrap();
    assert_eq!(r.resolved.len(), 1, "{r:?}");
    let got = mailbox(&g, FRANCE);
    assert_eq!(got.len(), before + 1, "{got:#?}");
    let (_, body) = got.last().unwrap();
    assert!(
        body.starts_with("In answer to your mail \"orders f2\":\n\nYour message was NOT taken as orders"),
        "{body}"
    );
    let text = flat(body);
    assert!(text.contains("France sent no orders by the deadline"), "{body}");
}

// A phase resolved by hand whose mail goes out only with a run past the
// reminder's time: the phase mail that opens France's phase carries the
// reminder at its top (no orders yet, the deadline), one mail, the map
// and files still attached; a power that is in gets no such lines.
#[test]
fn a_reminder_due_in_the_run_that_opens_the_phase_rides_in_its_mail() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game_at_frances_turn(tmp.path());
    let turn = phase(&g);
    // The hand resolutions started France's phase clock (as `resolve`
    // does); no run mailed anything since.
    let c = g.load_config().unwrap();
    let opened = t("2026-01-04T10:00:00Z");
    let clock = empereur::ops::workflow::ensure_clock(&g, &c, opened).unwrap();
    let deadline = clock.deadline(opened, &c.deadlines, c.tz(), &[]);
    let now = deadline - Duration::hours(1);
    let r = run_game(&g.root, &[], now).unwrap();
    assert_eq!(r.reminders, [empereur::ids::PowerId::France], "{r:?}");
    let got = mailbox(&g, FRANCE);
    assert!(got.iter().all(|(s, _)| !s.contains("are due")), "{got:#?}");
    let (subject, body) = got.last().unwrap();
    assert!(subject.ends_with(&format!("phase {turn} is open")), "{subject}");
    assert!(
        body.starts_with(&format!(
            "Game demo: no orders from France yet for phase {turn}.\nDeadline: "
        )),
        "{body}"
    );
    let text = flat(body);
    assert!(text.contains("Send them before the deadline."), "{body}");
    assert!(text.contains("France must send orders for this phase"), "{body}");
    assert_eq!(body.matches("Empereur-Chain:").count(), 1, "{body}");
    let raw = delivered_raw(&g, FRANCE);
    let opening = raw.iter().find(|r| r.contains("no orders from France yet")).unwrap();
    assert!(opening.contains("filename=\"state-france.toml\""), "{opening}");
    assert!(opening.contains("Auto-Submitted: auto-generated"));
    // Austria is not to move: its phase mail of the run has no reminder.
    let (_, austria) = mailbox(&g, AUSTRIA).pop().unwrap();
    assert!(!austria.contains("no orders from"), "{austria}");
}

// Pipe delivery: `ingest` queues the answer (nothing is sent from the
// pipe) and the next `run` resolves the phase (READY from the only power
// that must order): the answer leaves inside the phase mail, not beside it.
#[test]
fn an_answer_queued_by_a_pipe_leaves_inside_the_phase_mail_of_the_next_run() {
    let (_tmp, g, before, t0) = frances_last_orders_piped("f3");
    assert_eq!(mailbox(&g, FRANCE).len(), before, "nothing sent by ingest");
    let r = run_game(&g.root, &[], t0 + Duration::minutes(2)).unwrap();
    assert_eq!(r.resolved.len(), 1, "{r:?}");
    let got = mailbox(&g, FRANCE);
    assert_eq!(got.len(), before + 1, "{got:#?}");
    let (_, body) = got.last().unwrap();
    assert!(
        body.starts_with("In answer to your mail \"orders f3\":\n\nFrance is IN"),
        "{body}"
    );
    assert!(flat(body).contains("ok MOVE French corps 8 -> Lombardy"), "{body}");
    assert!(
        flat(body).contains("French corps 8 moved from Piedmont to Lombardy"),
        "{body}"
    );
}

// An answer that a send already touched is never folded: one marked
// leaving by a send that did not finish may have reached the player, and
// one the server refused waits for the moderator. Either stays in the
// outbox as it is, and the phase mail France reads opens with the report,
// not with that answer's words (read twice, or read where the moderator
// has not released it).
#[test]
fn an_answer_a_send_touched_stays_out_of_the_phase_mail() {
    for touched in ["sending", "refused"] {
        let (_tmp, g, before, t0) = frances_last_orders_piped("f4");
        let queued = outbox::queued(&g).unwrap();
        assert_eq!(queued.len(), 1, "{touched}: the answer alone is queued: {queued:?}");
        let id = &queued[0];
        let mut env = outbox::read_envelope(&outbox::env_path(&g, id)).unwrap();
        match touched {
            "sending" => {
                env.sending = true;
                env.batch = Some(format!("{}/1/1", store::checkpoint::boot_id()));
            }
            _ => env.refused = Some("550 5.1.1 mailbox full".into()),
        }
        outbox::write_envelope(&outbox::env_path(&g, id), &env).unwrap();

        let r = run_game(&g.root, &[], t0 + Duration::minutes(2)).unwrap();
        assert_eq!(r.resolved.len(), 1, "{touched}: {r:?}");
        let got = mailbox(&g, FRANCE);
        assert_eq!(got.len(), before + 1, "{touched}: the phase mail alone: {got:#?}");
        let (_, body) = got.last().unwrap();
        assert!(
            !body.contains("In answer to your mail") && !body.contains("France is IN"),
            "{touched}: the touched answer was folded: {body}"
        );
        assert!(
            flat(body).contains("French corps 8 moved from Piedmont to Lombardy"),
            "{touched}: {body}"
        );
        assert!(
            outbox::queued(&g).unwrap().contains(id),
            "{touched}: the touched answer stays in the outbox"
        );
    }
}

// Two mails from France read in the run that resolves the phase (orders,
// then a corrected set): one phase mail, whose subject still names the
// phase resolved and the phase now open (not `Re:`, which would hide
// them), both answers at its top in the order the mails were sent, and
// threaded under the last mail (`In-Reply-To`, `References`,
// auto-replied); neither answer also goes out alone.
#[test]
fn two_answers_ride_in_one_phase_mail_named_for_the_phase_and_threaded_under_the_last() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game_at_frances_turn(tmp.path());
    no_change_of_mind_delay(&g);
    let turn = phase(&g);
    let t0 = t("2026-01-05T10:00:00Z");
    run_game(&g.root, &[], t0).unwrap();
    let before = delivered_raw(&g, FRANCE).len();
    let first = mail(
        FRANCE,
        "France",
        "austerlitz",
        "f3",
        &format!("PHASE {turn}\nMOVE corps 8 -> Lombardy\nMOVE corps 1 -> Nowhere\n"),
    );
    let second = mail(
        FRANCE,
        "France",
        "austerlitz",
        "f4",
        &format!("PHASE {turn}\nMOVE corps 8 -> Lombardy\n"),
    );
    let r = run_game(&g.root, &[first, second], t0 + Duration::minutes(5)).unwrap();
    assert_eq!(r.resolved.len(), 1, "{r:?}");
    let now = phase(&g);
    assert_ne!(now, turn);
    let raw = delivered_raw(&g, FRANCE);
    assert_eq!(raw.len(), before + 1, "one mail for France from this run");
    let got = mailbox(&g, FRANCE);
    let (subject, body) = got.last().unwrap();
    assert_eq!(
        subject,
        &format!("Empereur demo: report of {turn} for France; phase {now} is open")
    );
    let at = |s: &str| body.find(s).unwrap_or_else(|| panic!("no '{s}' in:\n{body}"));
    assert_eq!(at("In answer to your mail \"orders f3\":"), 0, "{body}");
    assert!(at("In answer to your mail \"orders f4\":") < at(&format!("Phase {turn} has resolved since")));
    assert!(at("NO  MOVE corps 1 -> Nowhere") < at("In answer to your mail \"orders f4\":"));
    let mail = raw
        .iter()
        .find(|r| r.contains(&format!("phase {now} is open")) && r.contains("report of"))
        .unwrap();
    assert!(mail.contains("In-Reply-To: <f4@players.example.org>"), "{mail}");
    assert!(mail.contains("References: <f4@players.example.org>"), "{mail}");
    assert!(mail.contains("Auto-Submitted: auto-replied"), "{mail}");
    assert!(
        !raw.iter().any(|r| r.contains("Subject: Re: orders f3")),
        "f3's answer went alone"
    );
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert_eq!(
        journal.lines().filter(|l| l.contains(" fold: ")).count(),
        2,
        "{journal}"
    );
}
