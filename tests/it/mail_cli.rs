//! The mail commands as a moderator runs them: `empereur ingest` from
//! files, stdin and an mbox, exit codes, template overrides, and `send`.
#![allow(clippy::disallowed_methods)] // tests read and write files

use assert_cmd::Command;
use std::path::{Path, PathBuf};

const PLAYERS: &str = "[moderator]\nname = \"GM\"\nemail = \"gm@demo.example.org\"\n\
[[player]]\npower = \"france\"\nname = \"Napoleon's Player\"\nemail = \"france@demo.example.org\"\npassword = \"austerlitz\"\n\
[[player]]\npower = \"austria\"\nname = \"Francis's Player\"\nemail = \"austria@demo.example.org\"\npassword = \"aspern\"\n";

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("orders/emails").join(name)
}

fn new_game(tmp: &Path) -> PathBuf {
    std::fs::write(tmp.join("players.toml"), PLAYERS).unwrap();
    let dir = tmp.join("demo");
    Command::cargo_bin("empereur")
        .unwrap()
        .args(["new", "--house-seating"])
        .arg(&dir)
        .args(["--id", "demo", "--players"])
        .arg(tmp.join("players.toml"))
        .assert()
        .success();
    dir
}

fn outbox_bodies(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir.join("mail/outbox")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml") {
            let raw = std::fs::read(&p).unwrap();
            let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
            out.push(m.body_text(0).unwrap().into_owned());
        }
    }
    out
}

#[test]
fn a_refused_message_exits_1_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = new_game(tmp.path());
    let out = Command::cargo_bin("empereur")
        .unwrap()
        .args(["ingest", "--game"])
        .arg(&dir)
        .arg(corpus("wrong-password.eml"))
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("austria@demo.example.org: refused: wrong password for Austria"),
        "{out}"
    );
}

#[test]
fn stdin_and_mbox_are_sources_and_a_game_may_override_the_templates() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = new_game(tmp.path());
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("templates/ack.txt"),
        "House ack for {{ game }}: {{ verdict }}{% if refusal %} ({{ refusal }}){% endif %}\n",
    )
    .unwrap();
    // One message on standard input (a .forward or procmail pipe): refused,
    // but archived and answered, so exit 0 (sysexits: the reply is the
    // answer; a non-zero status would make the server bounce it too).
    Command::cargo_bin("empereur")
        .unwrap()
        .args(["ingest", "--game"])
        .arg(&dir)
        .arg("-")
        .write_stdin(std::fs::read(corpus("stale-phase.eml")).unwrap())
        .assert()
        .code(0)
        .stdout(predicates::str::contains("refused: the PHASE line names"));
    // Two messages in an mbox, with a `>From `-escaped line in a body.
    let mut mbox = String::new();
    for (i, (game, power)) in [("waterloo", "austria"), ("demo", "bavaria")].into_iter().enumerate() {
        mbox.push_str(&format!(
            "From austria@demo.example.org Mon Nov 30 09:00:00 2026\nFrom: austria@demo.example.org\nTo: gm@demo.example.org\nSubject: orders\nMessage-ID: <mbox-{i}@x>\n\nGAME {game}\nPOWER {power}\nPASSWORD aspern\n>From the front, Sire.\nEND\n\n"
        ));
    }
    std::fs::write(tmp.path().join("mail.mbox"), mbox).unwrap();
    let out = Command::cargo_bin("empereur")
        .unwrap()
        .args(["ingest", "--game"])
        .arg(&dir)
        .arg("--mbox")
        .arg(tmp.path().join("mail.mbox"))
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(out.lines().count(), 2, "{out}");
    let mut bodies = outbox_bodies(&dir);
    bodies.sort();
    assert_eq!(bodies.len(), 3);
    assert!(
        bodies.iter().all(|b| b.starts_with("House ack for demo: refused (")),
        "{bodies:?}"
    );
    assert!(bodies.iter().any(|b| b.contains("no power 'bavaria'")), "{bodies:?}");
    // `send` delivers them to files by default; the outbox is then empty.
    Command::cargo_bin("empereur")
        .unwrap()
        .args(["send", "--game"])
        .arg(&dir)
        .assert()
        .success();
    assert_eq!(std::fs::read_dir(dir.join("mail/files")).unwrap().count(), 3);
    assert_eq!(std::fs::read_dir(dir.join("mail/outbox")).unwrap().count(), 0);
    let journal = std::fs::read_to_string(dir.join("journal.log")).unwrap();
    assert_eq!(
        journal.lines().filter(|l| l.contains(" refused (")).count(),
        3,
        "{journal}"
    );
    assert_eq!(journal.lines().filter(|l| l.contains("send: ")).count(), 3, "{journal}");
}

#[test]
fn ingest_without_a_source_processes_what_a_crash_left_in_new() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = new_game(tmp.path());
    // A message delivered straight into the game's inbox (by Postfix, or
    // archived just before a crash).
    let raw = std::fs::read(corpus("unknown-power.eml")).unwrap();
    std::fs::write(dir.join("mail/inbox/new/1796032550.V1.host"), &raw).unwrap();
    Command::cargo_bin("empereur")
        .unwrap()
        .args(["ingest", "--game"])
        .arg(&dir)
        .assert()
        .code(1);
    let hash = empereur::mail::sha256_hex(&raw);
    assert!(dir.join("mail/inbox/cur").join(format!("{hash}:2,S")).exists());
    assert_eq!(outbox_bodies(&dir).len(), 1);
    // Nothing is left to do.
    Command::cargo_bin("empereur")
        .unwrap()
        .args(["ingest", "--game"])
        .arg(&dir)
        .assert()
        .success();
}
