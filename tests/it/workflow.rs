//! The moderator's clock commands on the real binary, with the clock
//! injected through EMPEREUR_NOW (no sleeping).
#![allow(clippy::disallowed_methods)] // tests use files and the environment freely

use assert_cmd::Command;
use std::path::Path;

/// France and Great Britain played (3.0), the rest NPCs.
const PLAYERS: &str = include_str!("../fixtures/players/france_britain.toml");

fn empereur(now: &str) -> Command {
    let mut c = Command::cargo_bin("empereur").unwrap();
    c.env("EMPEREUR_NOW", now);
    c
}

fn new_game(root: &Path) -> std::path::PathBuf {
    let players = root.join("players.toml");
    std::fs::write(&players, PLAYERS).unwrap();
    let game = root.join("g");
    empereur("2026-11-30T10:00:00Z")
        .args(["new", game.to_str().unwrap(), "--players", players.to_str().unwrap()])
        .assert()
        .success();
    game
}

fn stdout(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn pause_resume_and_extend_move_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let game = new_game(dir.path());
    let g = game.to_str().unwrap();
    // The turn-start phase's clock opens at the first command that needs
    // it: 24 h (house default) from 2026-11-30 10:00 UTC.
    let out = stdout(empereur("2026-11-30T10:00:00Z").args(["extend", "-g", g, "--hours", "0"]));
    assert!(out.contains("Tuesday 1 December 2026, 10:00 UTC"), "{out}");
    stdout(empereur("2026-11-30T12:00:00Z").args(["pause", "-g", g]));
    let status = stdout(empereur("2026-12-05T12:00:00Z").args(["status", "-g", g]));
    assert!(status.contains("status: paused"), "{status}");
    // A second pause is a "no".
    empereur("2026-12-05T12:00:00Z")
        .args(["pause", "-g", g])
        .assert()
        .code(1);
    // Paused 2 days: the deadline moves 2 days.
    let out = stdout(empereur("2026-12-02T12:00:00Z").args(["resume", "-g", g]));
    assert!(out.contains("Thursday 3 December 2026, 10:00 UTC"), "{out}");
    let out =
        stdout(empereur("2026-12-02T13:00:00Z").args(["extend", "-g", g, "--hours", "24", "--reason", "holiday"]));
    assert!(out.contains("Friday 4 December 2026, 10:00 UTC"), "{out}");
    let journal = std::fs::read_to_string(game.join("journal.log")).unwrap();
    assert!(
        journal.contains("2026-11-30T12:00:00Z moderator paused the game"),
        "{journal}"
    );
    assert!(
        journal.contains("extended the deadline by 24 h to 2026-12-04T10:00:00Z (holiday)"),
        "{journal}"
    );
}

#[test]
fn replace_player_rehashes_and_refuses_npcs() {
    let dir = tempfile::tempdir().unwrap();
    let game = new_game(dir.path());
    let g = game.to_str().unwrap();
    let new = dir.path().join("new.toml");
    std::fs::write(
        &new,
        "[moderator]\nname = \"GM\"\nemail = \"gm@example.org\"\n\n[[player]]\npower = \"britain\"\nname = \"Carol\"\nemail = \"carol@example.org\"\npassword = \"three\"\n",
    )
    .unwrap();
    let out = stdout(empereur("2026-11-30T10:00:00Z").args([
        "replace-player",
        "-g",
        g,
        "--power",
        "britain",
        "--players",
        new.to_str().unwrap(),
    ]));
    assert_eq!(out.trim(), "britain is now played by Carol <carol@example.org>");
    let config = std::fs::read_to_string(game.join("game.toml")).unwrap();
    assert!(config.contains("carol@example.org") && !config.contains("bob@example.org"));
    assert!(!config.contains("three"), "the password is stored only as a hash");
    let err = empereur("2026-11-30T10:00:00Z")
        .args([
            "replace-player",
            "-g",
            g,
            "--power",
            "russia",
            "--players",
            new.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(err.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&err.stderr).contains("no [[player]] entry for russia"));
}

fn run_ok(c: &mut Command) -> String {
    stdout(c)
}

/// The history's entries after the genesis entry (entry 0, docs/dice.md 1a).
fn entries(game: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(game.join("history"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("0000-"))
        .collect();
    v.sort();
    v
}

#[test]
fn autoplay_resolves_phases_that_verify() {
    let dir = tempfile::tempdir().unwrap();
    let game = new_game(dir.path());
    let g = game.to_str().unwrap();
    let out = run_ok(empereur("2026-11-30T10:00:00Z").args(["autoplay", "-g", g, "--phases", "6", "--seed", "9"]));
    assert!(out.starts_with("resolved 6 phase(s)"), "{out}");
    assert_eq!(entries(&game).len(), 6);
    let v = run_ok(empereur("2026-11-30T10:00:00Z").args(["verify", "-g", g]));
    assert!(
        v.trim_end().ends_with("0 manual roll(s)") && v.contains("ok: 6 entries"),
        "{v}"
    );
}

#[test]
fn preview_never_touches_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let game = new_game(dir.path());
    let g = game.to_str().unwrap();
    let before = std::fs::read(game.join("state.toml")).unwrap();
    let out = run_ok(empereur("2026-11-30T10:00:00Z").args(["preview", "-g", g]));
    assert!(out.starts_with("PREVIEW WITH A THROWAWAY SEED"), "{out}");
    assert!(out.contains("preview of 1805-fall-turn-start"), "{out}");
    assert_eq!(std::fs::read(game.join("state.toml")).unwrap(), before);
    // The preview is recorded (a `preview` entry in the hash chain), no more.
    let e = entries(&game);
    assert_eq!(e.len(), 1, "{e:?}");
    let rec = std::fs::read_to_string(game.join("history").join(&e[0]).join("entry.toml")).unwrap();
    assert!(rec.contains("kind = \"preview\""), "{rec}");
}

#[test]
fn undo_reopens_under_its_own_commitment_and_verify_still_passes() {
    let dir = tempfile::tempdir().unwrap();
    let game = new_game(dir.path());
    let g = game.to_str().unwrap();
    run_ok(empereur("2026-11-30T10:00:00Z").args(["autoplay", "-g", g, "--phases", "2"]));
    let state_before_second =
        std::fs::read_to_string(game.join("history").join(&entries(&game)[1]).join("state-before.toml")).unwrap();
    let discarded = std::fs::read_to_string(game.join("phase/commitment")).unwrap();
    let out = run_ok(empereur("2026-12-01T10:00:00Z").args(["undo", "-g", g, "--reason", "wrong orders entered"]));
    assert!(out.starts_with(&format!("rolled back {}", entries(&game)[1])), "{out}");
    // The state is the one before the undone resolution, reopened under
    // its own commitment; the abandoned phase's seed is in the undo entry.
    assert_eq!(
        std::fs::read_to_string(game.join("state.toml")).unwrap(),
        state_before_second
    );
    let reopened = std::fs::read_to_string(game.join("phase/commitment")).unwrap();
    assert_ne!(reopened, discarded);
    let undone: toml::Table = toml::from_str(
        &std::fs::read_to_string(game.join("history").join(&entries(&game)[1]).join("entry.toml")).unwrap(),
    )
    .unwrap();
    assert!(reopened.contains(undone["commitment"].as_str().unwrap()), "{reopened}");
    // The players hear of it with the entry's mail, after the reports of
    // the entries before it (`run`, or `mail` for a moderator without cron).
    assert!(!outbox_text(&game).contains("Reason: wrong orders entered"));
    run_ok(empereur("2026-12-01T10:00:00Z").args(["mail", "-g", g, "--no-send"]));
    assert!(outbox_text(&game).contains("Reason: wrong orders entered"));
    let undo_entry = game.join("history").join(&entries(&game)[2]);
    assert!(undo_entry.join("abandoned-seed").exists());
    assert_eq!(
        std::fs::read_to_string(undo_entry.join("reason.txt")).unwrap(),
        "wrong orders entered\n"
    );
    let v = run_ok(empereur("2026-12-01T10:00:00Z").args(["verify", "-g", g]));
    assert!(v.contains("ok: 3 entries"), "{v}");
    // Undo again rolls back the first resolution; then there is none left.
    run_ok(empereur("2026-12-01T10:00:00Z").args(["undo", "-g", g, "--reason", "start over"]));
    empereur("2026-12-01T10:00:00Z")
        .args(["undo", "-g", g, "--reason", "once more"])
        .assert()
        .code(1);
    // Play on: verify covers the whole history, undos included.
    run_ok(empereur("2026-12-01T10:00:00Z").args(["autoplay", "-g", g, "--phases", "2"]));
    let v = run_ok(empereur("2026-12-01T10:00:00Z").args(["verify", "-g", g]));
    assert!(v.contains("ok: 6 entries"), "{v}");
}

/// Every queued outgoing mail, concatenated.
fn outbox_text(game: &Path) -> String {
    let mut all = String::new();
    for e in std::fs::read_dir(game.join("mail/outbox")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml") {
            all.push_str(&std::fs::read_to_string(p).unwrap());
        }
    }
    all
}

#[test]
fn status_counts_messages_and_shows_the_new_deadline_right_after_a_hand_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let game = new_game(dir.path());
    let g = game.to_str().unwrap();
    // Queue the first phase's openings (two players), without sending.
    run_ok(empereur("2026-11-30T10:00:00Z").args(["mail", "-g", g, "--no-send"]));
    let status = run_ok(empereur("2026-11-30T11:00:00Z").args(["status", "-g", g]));
    assert!(status.contains("outbox: 2 message(s) queued"), "{status}");
    assert!(status.contains("deadline: Tue 2026-12-01 10:00 UTC"), "{status}");
    // A hand resolve a day later: the next phase's clock starts then.
    run_ok(empereur("2026-12-02T09:00:00Z").args(["resolve", "-g", g]));
    let status = run_ok(empereur("2026-12-02T09:05:00Z").args(["status", "-g", g]));
    assert!(
        !status.contains("Tue 2026-12-01 10:00"),
        "the old phase's deadline: {status}"
    );
    assert!(
        status.contains("deadline: Sat 2026-12-05 09:00 UTC"),
        "72 h from the resolve: {status}"
    );
}

#[test]
fn submit_stores_the_good_lines_when_one_names_a_misspelt_power() {
    let dir = tempfile::tempdir().unwrap();
    let game = new_game(dir.path());
    let g = game.to_str().unwrap();
    let orders = dir.path().join("phoned-in.txt");
    std::fs::write(&orders, "POWER France\nCOOPERATE WITH Austira\nMOVE FIRST\n").unwrap();
    let out = empereur("2026-11-30T10:00:00Z")
        .args(["submit", "-g", g, "--power", "france", orders.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "some order rejected: {text}");
    assert!(text.contains("no major power 'Austira'"), "{text}");
    assert!(text.contains("stored 1 order(s) for France"), "{text}");
    let stored = std::fs::read_to_string(game.join("phase/orders/france.toml")).unwrap();
    assert!(
        stored.contains("MOVE FIRST") || stored.contains("move_first"),
        "{stored}"
    );
    // A bad POWER line still voids the message, as it does by mail.
    std::fs::write(&orders, "POWER Frnace\nMOVE FIRST\n").unwrap();
    let out = empereur("2026-11-30T10:00:00Z")
        .args(["submit", "-g", g, "--power", "france", orders.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("nothing stored"), "{text}");
    // Nothing accepted: the stored orders stay as they were.
    std::fs::write(&orders, "POWER France\nCOOPERATE WITH Austira\n").unwrap();
    let out = empereur("2026-11-30T10:00:00Z")
        .args(["submit", "-g", g, "--power", "france", orders.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("nothing stored"), "{text}");
    assert_eq!(
        std::fs::read_to_string(game.join("phase/orders/france.toml")).unwrap(),
        stored
    );
}

#[test]
fn replace_player_takes_just_the_player_entry_and_hands_over_by_mail() {
    let dir = tempfile::tempdir().unwrap();
    let game = new_game(dir.path());
    let g = game.to_str().unwrap();
    run_ok(empereur("2026-11-30T10:00:00Z").args(["mail", "-g", g]));
    let new = dir.path().join("new-britain.toml");
    std::fs::write(
        &new,
        "[[player]]\npower = \"britain\"\nname = \"Carol\"\nemail = \"carol@example.org\"\npassword = \"three\"\n",
    )
    .unwrap();
    let out = run_ok(empereur("2026-11-30T11:00:00Z").args([
        "replace-player",
        "-g",
        g,
        "--power",
        "britain",
        "--players",
        new.to_str().unwrap(),
    ]));
    assert!(out.contains("now played by Carol <carol@example.org>"), "{out}");
    let mut to_carol = None;
    let mut to_bob = None;
    for e in std::fs::read_dir(game.join("mail/outbox")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml") {
            let raw = std::fs::read(&p).unwrap();
            let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
            let to: Vec<String> = m
                .to()
                .map(|a| a.iter().filter_map(|x| x.address().map(str::to_string)).collect())
                .unwrap_or_default();
            let body = m.body_text(0).unwrap_or_default().replace("\r\n", "\n");
            let names: Vec<String> = m
                .attachments()
                .filter_map(|a| mail_parser::MimeHeaders::attachment_name(a).map(str::to_string))
                .collect();
            if to == ["carol@example.org"] {
                to_carol = Some((body, names));
            } else if to == ["bob@example.org"] {
                to_bob = Some(body);
            }
        }
    }
    let (body, names) = to_carol.expect("the new player gets a mail of its own");
    assert!(body.contains("you now play Great Britain"), "{body}");
    assert!(
        body.contains("Deadline: Tuesday 1 December 2026, 10:00 UTC\n"),
        "{body}"
    );
    assert!(
        body.contains("POWER britain\nPASSWORD \nPHASE 1805-fall-turn-start"),
        "{body}"
    );
    assert_eq!(names, vec!["state-britain.toml"]);
    let bob = to_bob.expect("the old player is told");
    assert!(bob.contains("You no longer play it"), "{bob}");
}
