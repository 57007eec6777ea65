//! Observers (`[[observer]]` in players.toml; orders/README.md,
//! "Observers"): a game played by mail through `run`, then what the
//! observer's mailbox holds, searched for every secret of the game.
#![allow(clippy::disallowed_methods)] // tests use files freely

use crate::table_common::{Got, mailbox, orders, raw as mail, t};
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::run::run_game;
use empereur::store::{self, GameDir};
use std::path::Path;

const WATCHER: &str = "watcher@observers.example.net";

/// The demo's players and one observer, the game's deadlines in UTC.
fn game(root: &Path) -> GameDir {
    let observer = format!("[[observer]]\nname = \"Le Moniteur\"\nemail = \"{WATCHER}\"\n");
    let g = crate::table_common::game(root, &observer, |c| {
        c.timezone = "UTC".into();
        c.deadlines.time_of_day = None;
    });
    assert_eq!(g.load_config().unwrap().observers.len(), 1);
    g
}

fn france(id: &str, lines: &str) -> Vec<u8> {
    orders("france", id, lines)
}

#[test]
fn an_observer_gets_the_public_report_map_and_press_and_nothing_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    // The public opening: who is to move, the deadline, the commitment
    // and the public map; no units, no order template.
    let opened = mailbox(&g, WATCHER);
    assert_eq!(opened.len(), 1, "the opening of the first phase");
    let o = &opened[0];
    assert!(
        o.subject.contains("phase 1805-fall-turn-start is open (observer)"),
        "{}",
        o.subject
    );
    let flat = o.text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("You observe this game; to move: France."), "{flat}");
    assert!(flat.contains("Deadline: "), "{flat}");
    assert!(flat.contains("Dice commitment (SHA-256;"), "{flat}");
    assert!(
        !flat.contains("Your units") && !flat.contains("Order template"),
        "{flat}"
    );
    let names: Vec<&str> = o.attachments.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["map-1805-fall-turn-start-public.png"]);
    let mails = vec![
        france("p1", "PRESS TO ALL\nThe eagles fly at dawn.\nENDPRESS"),
        france("p2", "PRESS TO Austria\nOur secret plan for Bavaria.\nENDPRESS"),
        france("o1", "MOVE FIRST"),
    ];
    run_game(&g.root, &mails, t("2026-01-05T10:30:00Z")).unwrap();
    let before: Vec<Got> = mailbox(&g, WATCHER)
        .into_iter()
        .filter(|m| !m.subject.contains("is open"))
        .collect();
    assert_eq!(before.len(), 1, "only the public press so far");
    assert!(before[0].subject.contains("press from France"), "{}", before[0].subject);
    assert!(before[0].text.contains("The eagles fly at dawn."), "{}", before[0].text);
    assert!(
        before[0].text.contains("from France to all players"),
        "{}",
        before[0].text
    );
    // Orders are not public before the report.
    assert!(
        !before[0].raw.to_lowercase().contains("move first"),
        "{}",
        before[0].raw
    );
    let r = run_game(&g.root, &[], t("2026-01-05T11:05:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
    let got = mailbox(&g, WATCHER);
    let report = got
        .iter()
        .find(|m| m.subject.contains("public report of 1805-fall-turn-start"))
        .expect("the public report");
    assert_eq!(report.to, WATCHER, "the observer alone, no other address");
    let names: Vec<&str> = report.attachments.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("map-") && n.ends_with("-public.png")),
        "{names:?}"
    );
    for n in &names {
        assert!(
            !n.ends_with(".toml") && !n.starts_with("dice-log") && !n.ends_with(".json"),
            "{n}: no state, dice log or JSON for an observer"
        );
    }
    // The report's outcome, as every player reads it.
    let france_report = mailbox(&g, "france@demo.example.org")
        .into_iter()
        .find(|m| m.subject.contains("report of 1805-fall-turn-start"))
        .unwrap();
    assert!(report.text.contains("France opts to move first"), "{}", report.text);
    assert!(
        france_report.text.contains("9 corps on the map"),
        "{}",
        france_report.text
    );
    // The public Standings: every power's VP against its goal and its
    // Gold, as the public site shows them, once (no `Now:` block).
    assert!(
        report.text.contains("Standings after 1805-fall-turn-start:"),
        "{}",
        report.text
    );
    let row = report.text.lines().find(|l| l.starts_with("  Austria ")).unwrap();
    assert!(row.contains(" 100/") && row.ends_with(" 35"), "{row}");
    assert!(!report.text.contains("Austria: 35 Gold, 100 VP"), "{}", report.text);
    // and the public opening of the next phase, in the same mail.
    assert!(
        report.subject.contains("phase 1805-fall-france is open (observer)"),
        "{}",
        report.subject
    );
    assert!(
        report.text.contains("Now: France to move (phase 1805-fall-france)."),
        "{}",
        report.text
    );
    assert!(
        report.text.contains("You observe this game; to move: France."),
        "{}",
        report.text
    );
    assert_eq!(
        got.iter()
            .filter(|m| m.subject.contains("1805-fall-france is open"))
            .count(),
        1,
        "one mail for the phase"
    );
    // Secrets: orders before they are public, private press, passwords and
    // their hashes, players' addresses, what only France's state shows.
    let players = store::players::parse("players.toml", DEMO_PLAYERS).unwrap();
    let mut secrets: Vec<String> = vec![
        "Our secret plan".into(),
        "$argon2".into(),
        "password".into(),
        "corps on the map".into(),
        "moderator.".into(),
        "Your units".into(),
        "Order template".into(),
        "Kingdom treasuries".into(),
    ];
    for p in &players.players {
        secrets.push(p.password.clone());
        secrets.push(p.email.clone());
    }
    for m in &got {
        // The mail as text, its pictures left out: a map's base64 holds
        // any four letters somewhere (`nile`, case aside, in one of 1 in
        // 6 maps), which would be no secret told.
        let mut all: String = m
            .raw
            .split("\r\n--")
            .filter(|part| !(part.contains("Content-Type: image/") && part.contains("base64")))
            .collect::<Vec<_>>()
            .join("\r\n--");
        for (_, b) in m.attachments.iter().filter(|(n, _)| !n.ends_with(".png")) {
            all.push_str(&String::from_utf8_lossy(b));
        }
        let lower = all.to_lowercase();
        for s in &secrets {
            assert!(
                !lower.contains(&s.to_lowercase()),
                "{s} in the observer's mail {}",
                m.subject
            );
        }
    }
}

#[test]
fn an_observers_mail_is_answered_never_orders_and_never_a_password_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path());
    // Six mails with a wrong password, one with the right one and an order.
    let mut mails: Vec<Vec<u8>> = (0..6)
        .map(|i| {
            mail(
                WATCHER,
                &format!("w{i}"),
                "GAME demo\nPOWER Austria\nPASSWORD guessing\nPASS",
            )
        })
        .collect();
    mails.push(mail(
        WATCHER,
        "w9",
        "GAME demo\nPOWER France\nPASSWORD austerlitz\nMOVE FIRST",
    ));
    let r = run_game(&g.root, &mails, t("2026-01-05T10:30:00Z")).unwrap();
    assert!(r.resolved.is_empty());
    assert!(
        store::submission::load_all(&g).unwrap().is_empty(),
        "nothing stored for any power"
    );
    let answers: Vec<Got> = mailbox(&g, WATCHER)
        .into_iter()
        .filter(|m| m.subject.starts_with("Re:"))
        .collect();
    assert_eq!(answers.len(), 7, "each mail answered once");
    for a in &answers {
        let flat = a.text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("Le Moniteur, you observe game demo"), "{flat}");
        assert!(flat.contains("nothing of your mail was read"), "{flat}");
    }
    insta::assert_snapshot!("observer-answer", answers[0].text.split("\n-- \n").next().unwrap_or(""));
    // No power was told its password is being guessed.
    for p in [
        "austria@demo.example.org",
        "france@demo.example.org",
        "gm@demo.example.org",
    ] {
        for m in mailbox(&g, p) {
            assert!(!m.text.contains("wrong password"), "{p}: {}", m.text);
        }
    }
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert_eq!(
        journal.matches("from an observer; answered, not read").count(),
        7,
        "{journal}"
    );
}

#[test]
fn an_observer_address_that_is_a_players_is_refused_with_its_line() {
    let text = format!("{DEMO_PLAYERS}\n[[observer]]\nname = \"Spy\"\nemail = \"France@demo.example.org\"\n");
    let Err(e) = store::players::parse("players.toml", &text) else {
        panic!("accepted")
    };
    let line = text.lines().position(|l| l == "[[observer]]").unwrap() + 1;
    assert_eq!(
        e,
        format!(
            "players.toml:{line}: observer address 'France@demo.example.org' is a player's, the moderator's or another observer's"
        )
    );
}
