//! Issue 33, what was left of the loop as players live it, asserted from
//! what each mailbox holds (the file transport delivers, the journal's
//! `send:` lines say what went where): an answer awaited is what holds the
//! phase open, for the moderator's `games` and `status`, for a player's
//! STATUS (only their own diplomacy named), and the power owing it is
//! reminded before the deadline.
#![allow(clippy::disallowed_methods)] // tests use files freely

use chrono::{DateTime, Duration, Utc};
use empereur::mail::outbox::{self, Envelope};
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::ops::resolve::{ResolveOptions, Resolved, resolve_game};
use empereur::ops::run::run_game;
use empereur::store::{self, GameDir};
use std::path::{Path, PathBuf};

pub fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

pub const FRANCE: &str = "france@demo.example.org";
pub const PRUSSIA: &str = "prussia@demo.example.org";
pub const AUSTRIA: &str = "austria@demo.example.org";
pub const GM: &str = "gm@demo.example.org";

/// Five players (3.0's five: Spain and the Ottoman Empire are NPCs),
/// deadlines read in Paris, resolved by hand until France's Player Turn.
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
        if phase(&g).ends_with("-france") {
            return g;
        }
        let opts = ResolveOptions {
            now: Some("2026-01-04T10:00:00Z".into()),
            ..ResolveOptions::default()
        };
        assert!(matches!(resolve_game(&g, &opts).unwrap(), Resolved::Done(_)));
    }
    panic!("France's Player Turn never came: {}", phase(&g));
}

pub fn phase(g: &GameDir) -> String {
    g.load_state().unwrap().phase.to_string()
}

/// The messages delivered, in delivery order.
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

/// What a mailbox holds, in the order delivered: (subject, body text).
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
pub fn mail(from: &str, power: &str, password: &str, id: &str, orders: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: gm@demo.example.org\r\nSubject: orders {id}\r\nMessage-ID: <{id}@players.example.org>\r\nDate: Mon, 05 Jan 2026 10:00:00 +0000\r\n\r\nGAME demo\r\nPOWER {power}\r\nPASSWORD {password}\r\n{}",
        orders.replace('\n', "\r\n")
    )
    .into_bytes()
}

pub fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A mail's text above its signature.
pub fn text(body: &str) -> String {
    body.split("\n--\n").next().unwrap().to_string()
}

/// The deadline in force of the open phase.
fn deadline(g: &GameDir, now: DateTime<Utc>) -> DateTime<Utc> {
    let c = g.load_config().unwrap();
    g.load_clock()
        .unwrap()
        .unwrap()
        .deadline(now, &c.deadlines, c.tz(), &g.load_schedule().unwrap().absences)
}

// Issue 33 point 1: while Prussia's answer is awaited, what holds the
// phase open is said (to the moderator whole, to a third power without
// the pair's diplomacy), and Prussia is reminded before the deadline, as a
// late power is; France and Austria are not.
#[test]
fn an_awaited_answer_is_what_holds_the_phase_open_and_its_debtor_is_reminded() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game_at_frances_turn(tmp.path());
    let turn = phase(&g);
    let t0 = t("2026-01-05T10:00:00Z");
    run_game(&g.root, &[], t0).unwrap();
    let m = mail(FRANCE, "France", "austerlitz", "f1", "PROPOSE ALLIANCE TO Prussia\n");
    run_game(&g.root, &[m], t0 + Duration::minutes(5)).unwrap();
    // Past the change-of-mind delay: everyone is in, Prussia's answer holds it.
    let now = t0 + Duration::hours(2);
    let r = run_game(&g.root, &[], now).unwrap();
    assert!(r.resolved.is_empty());
    let want = "everyone is in; awaiting Prussia's answer to France's PROPOSE ALLIANCE TO Prussia (until the deadline at the latest)";
    // The moderator's overview and status name whose answer to what.
    let lines = empereur::ops::games::overview(tmp.path(), now).unwrap();
    let [empereur::ops::games::Listed::Game(line)] = &lines[..] else {
        panic!("{lines:?}")
    };
    let games = empereur::ops::games::render(line);
    assert!(games.ends_with(want), "{games}");
    assert!(!games.contains("due now"), "{games}");
    // A third power's STATUS says the phase waits for an answer, never
    // whose to what; Prussia's names it.
    let status = |from, power, pw, id| {
        run_game(&g.root, &[mail(from, power, pw, id, "STATUS\n")], now).unwrap();
        flat(&last(&g, from, &format!("orders {id}")))
    };
    let austria = status(AUSTRIA, "Austria", "aspern", "a1");
    assert!(
        austria.contains("Now: everyone is in; awaiting an answer to a proposal between other powers (until the deadline at the latest)"),
        "{austria}"
    );
    assert!(!austria.contains("ALLIANCE"), "{austria}");
    // Its acknowledgement's top says the same, as Austria may read it.
    assert!(
        austria.contains("Still holding the phase open: an answer to a proposal between other powers (until the deadline at the latest)."),
        "{austria}"
    );
    assert!(!austria.contains("Prussia's answer"), "{austria}");
    let prussia = status(PRUSSIA, "Prussia", "leipzig", "p1");
    assert!(prussia.contains(&format!("Now: {want}")), "{prussia}");
    // No reminder yet in the first half of the phase.
    assert!(
        mailbox(&g, PRUSSIA)
            .iter()
            .all(|(s, _)| !s.contains("answer is awaited"))
    );
    // An hour before the deadline: Prussia, who owes the answer, is
    // reminded once; France (in) and Austria (owing nothing) are not.
    let d = deadline(&g, now);
    let r = run_game(&g.root, &[], d - Duration::hours(1)).unwrap();
    assert_eq!(r.reminders, [empereur::ids::PowerId::Prussia], "{r:?}");
    run_game(&g.root, &[], d - Duration::minutes(30)).unwrap();
    let reminders: Vec<_> = mailbox(&g, PRUSSIA)
        .into_iter()
        .filter(|(s, _)| s.contains("answer is awaited"))
        .collect();
    assert_eq!(reminders.len(), 1, "{reminders:#?}");
    let (subject, body) = &reminders[0];
    assert_eq!(subject, &format!("Empereur demo: your answer is awaited in {turn}"));
    insta::assert_snapshot!("answer-reminder", text(body).replace(&turn, "<phase>"));
    let body = flat(body);
    assert!(
        body.contains("France: PROPOSE ALLIANCE TO Prussia answer with: ACCEPT ALLIANCE FROM France"),
        "{body}"
    );
    assert!(body.contains("Answer by: "), "{body}");
    assert!(body.contains("CET (Europe/Paris)"), "{body}");
    for who in [FRANCE, AUSTRIA, GM] {
        assert!(
            mailbox(&g, who)
                .iter()
                .all(|(s, b)| !s.contains("answer is awaited") && !b.contains("no orders from")),
            "{who}"
        );
    }
    // The deadline closes it all the same.
    let r = run_game(&g.root, &[], d + Duration::minutes(1)).unwrap();
    assert_eq!(r.resolved.len(), 1, "{r:?}");
}
