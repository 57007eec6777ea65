//! Diplomacy by mail: a proposal reaches its recipient at once, with the
//! answer to send and the phase in which it counts; openings list the
//! proposals pending; an answer sent where it cannot apply is refused
//! naming the phase in which it would count.
#![allow(clippy::disallowed_methods)] // tests use files and the environment freely

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// France and Great Britain played (3.0), the rest NPCs.
const PLAYERS: &str = include_str!("../fixtures/players/france_britain.toml");

const NOW: &str = "2026-11-30T10:00:00Z";

fn empereur() -> Command {
    let mut c = Command::cargo_bin("empereur").unwrap();
    c.env("EMPEREUR_NOW", NOW);
    c
}

fn out(c: &mut Command) -> (i32, String) {
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

fn phase(game: &Path) -> String {
    let s = std::fs::read_to_string(game.join("state.toml")).unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix("phase = "))
        .unwrap()
        .trim_matches('"')
        .to_string()
}

/// A new game resolved by hand until France's Player Turn is open.
fn game_at_frances_turn(root: &Path) -> PathBuf {
    let players = root.join("players.toml");
    std::fs::write(&players, PLAYERS).unwrap();
    let game = root.join("g");
    empereur()
        .args(["new", game.to_str().unwrap(), "--players", players.to_str().unwrap()])
        .assert()
        .success();
    for _ in 0..12 {
        if phase(&game).ends_with("-france") {
            // The orders-lock mails of the phases resolved to get here are
            // not what these tests look at.
            let _ = std::fs::remove_dir_all(game.join("mail/outbox"));
            std::fs::create_dir_all(game.join("mail/outbox")).unwrap();
            return game;
        }
        empereur()
            .args(["resolve", "-g", game.to_str().unwrap()])
            .assert()
            .success();
    }
    panic!("France's Player Turn never came: {}", phase(&game));
}

/// The decoded text of every queued message, by file.
fn outbox(game: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(game.join("mail/outbox")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml") {
            let raw = std::fs::read(&p).unwrap();
            let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
            let to = m
                .to()
                .and_then(|a| a.first())
                .and_then(|a| a.address())
                .unwrap_or("")
                .to_string();
            let subject = m.subject().unwrap_or("").to_string();
            let body = m.body_text(0).unwrap_or_default().replace("\r\n", "\n");
            v.push(format!("To: {to}\nSubject: {subject}\n\n{body}"));
        }
    }
    v
}

#[test]
fn a_proposal_reaches_its_recipient_at_once_and_openings_list_it() {
    let tmp = tempfile::tempdir().unwrap();
    let game = game_at_frances_turn(tmp.path());
    let g = game.to_str().unwrap();
    let ph = phase(&game);
    let f = tmp.path().join("france.txt");
    std::fs::write(
        &f,
        "POWER France\nPROPOSE ALLIANCE TO Britain\nGIFT 2 GOLD TO Britain\n",
    )
    .unwrap();
    let (code, text) = out(empereur().args(["submit", "-g", g, "--power", "france", f.to_str().unwrap()]));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("2 proposal notice(s) queued"), "{text}");
    let mails = outbox(&game);
    let alliance = mails
        .iter()
        .find(|m| m.contains("PROPOSE ALLIANCE TO"))
        .unwrap_or_else(|| panic!("{mails:?}"));
    assert!(alliance.starts_with("To: bob@example.org"), "{alliance}");
    assert!(alliance.contains("\n  ACCEPT ALLIANCE FROM France\n"), "{alliance}");
    assert!(alliance.contains(&format!("phase {ph} (this phase)")), "{alliance}");
    let gift = mails.iter().find(|m| m.contains("GIFT")).unwrap();
    assert!(gift.contains("needs no answer"), "{gift}");
    // Storing the same orders again tells nobody twice.
    let (_, text) = out(empereur().args(["submit", "-g", g, "--power", "france", f.to_str().unwrap()]));
    assert!(text.contains("2 proposal notice(s)"), "{text}");
    assert_eq!(outbox(&game).len(), 2);
    // Britain's opening (resent) lists the offer pending for it, with the
    // phase in which its answer counts; France's lists it as its own.
    out(empereur().args(["resend", "-g", g, "--power", "britain", "--no-send"]));
    out(empereur().args(["resend", "-g", g, "--power", "france", "--no-send"]));
    let mails = outbox(&game);
    let opening = |who: &str| {
        mails
            .iter()
            .find(|m| m.starts_with(&format!("To: {who}")) && m.contains("is open"))
            .unwrap_or_else(|| panic!("{mails:?}"))
            .replace("\n    ", " ")
    };
    let bob = opening("bob@");
    assert!(bob.contains("Diplomatic proposals pending:"), "{bob}");
    assert!(
        bob.contains(&format!("Answer ACCEPT ALLIANCE FROM France in phase {ph}")),
        "{bob}"
    );
    let alice = opening("alice@");
    assert!(alice.contains("Great Britain's answer counts only in phase"), "{alice}");
    // Britain accepts in this phase, and the alliance is made.
    let b = tmp.path().join("britain.txt");
    std::fs::write(&b, "POWER Britain\nACCEPT ALLIANCE FROM France\n").unwrap();
    let (code, text) = out(empereur().args(["submit", "-g", g, "--power", "britain", b.to_str().unwrap()]));
    assert_eq!(code, 0, "{text}");
    let (code, text) = out(empereur().args(["resolve", "-g", g]));
    assert_eq!(code, 0, "{text}");
    let entry = std::fs::read_dir(game.join("history"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(&ph))
        .max()
        .unwrap();
    let outcomes = std::fs::read_to_string(game.join("history").join(entry).join("outcomes.toml")).unwrap();
    assert!(outcomes.contains("France and Great Britain are allied"), "{outcomes}");
}

/// The section a refusal of the checker's output cites: the last
/// parenthesis of the line that says `what`.
fn cited<'t>(text: &'t str, what: &str) -> Option<&'t str> {
    let line = text.lines().find(|l| l.contains(what))?;
    line.rsplit_once(" (").map(|(_, s)| s.trim_end_matches(')'))
}

#[test]
fn an_answer_where_it_cannot_apply_is_refused_naming_the_phase_where_it_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let game = game_at_frances_turn(tmp.path());
    let g = game.to_str().unwrap();
    let ph = phase(&game);
    let b = tmp.path().join("britain.txt");
    // In France's turn, an answer to Russia's offer cannot apply.
    std::fs::write(&b, "POWER Britain\nACCEPT ALLIANCE FROM Russia\n").unwrap();
    let (code, text) = out(empereur().args(["check", "-g", g, "--power", "britain", b.to_str().unwrap()]));
    assert_eq!(code, 1, "{text}");
    let russia = ph.replace("-france", "-russia");
    assert!(
        text.contains(&format!(
            "ACCEPT ALLIANCE FROM Russia counts only in Russia's Player Turn (phase {russia})"
        )),
        "{text}"
    );
    // An answer to an alliance cites 5.2, one to a peace 5.1.
    assert_eq!(
        cited(&text, "ACCEPT ALLIANCE FROM Russia counts only"),
        Some("5.2"),
        "{text}"
    );
    // In the Build phase none can.
    empereur().args(["resolve", "-g", g]).assert().success();
    while !phase(&game).ends_with("-build") {
        empereur().args(["resolve", "-g", g]).assert().success();
    }
    std::fs::write(&b, "POWER Britain\nREJECT PEACE FROM France\n").unwrap();
    let (code, text) = out(empereur().args(["check", "-g", g, "--power", "britain", b.to_str().unwrap()]));
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("REJECT PEACE FROM France counts only in France's Player Turn"),
        "{text}"
    );
    assert_eq!(
        cited(&text, "REJECT PEACE FROM France counts only"),
        Some("5.1"),
        "{text}"
    );
    assert!(text.contains("takes BUILD, BUILD SQUADRON, STANDING"), "{text}");
}

#[test]
fn a_proposal_by_mail_is_announced_with_the_acknowledgement() {
    let tmp = tempfile::tempdir().unwrap();
    let game = game_at_frances_turn(tmp.path());
    let g = game.to_str().unwrap();
    let eml = tmp.path().join("alice.eml");
    std::fs::write(
        &eml,
        "From: Alice <alice@example.org>\r\nTo: game@example.org\r\nSubject: orders\r\nMessage-ID: <a1@example.org>\r\nDate: Mon, 30 Nov 2026 10:00:00 +0000\r\n\r\nPOWER France\r\nPASSWORD one\r\nPROPOSE ALLIANCE TO Britain\r\n",
    )
    .unwrap();
    let (code, text) = out(empereur().args(["ingest", "-g", g, eml.to_str().unwrap()]));
    assert_eq!(code, 0, "{text}");
    let mails = outbox(&game);
    assert!(
        mails
            .iter()
            .any(|m| m.starts_with("To: bob@example.org") && m.contains("ACCEPT ALLIANCE FROM France")),
        "{mails:?}"
    );
}
