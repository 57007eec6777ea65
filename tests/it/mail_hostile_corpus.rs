//! The hostile corpus (`orders/emails/hostile/`): mail written in the
//! shapes real mail takes when it goes wrong, run against the binary.
//! Not an answer key: what is checked must hold for any message, so a
//! new file dropped in that folder is covered as it is (README there).
#![allow(clippy::disallowed_methods)] // tests read and write files

use assert_cmd::Command;
use empereur::store::GameDir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const PLAYERS: &str = r#"
[moderator]
name = "Demo Moderator"
email = "gm@demo.example.org"

[[player]]
power = "france"
name = "Napoleon's Player"
email = "france@demo.example.org"
password = "austerlitz"

[[player]]
power = "austria"
name = "Francis's Player"
email = "austria@demo.example.org"
password = "aspern"
"#;

const NOW: &str = "2026-11-30T10:00:00Z";

fn bin() -> Command {
    let mut c = Command::cargo_bin("empereur").unwrap();
    c.env("EMPEREUR_NOW", NOW);
    c
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("orders/emails/hostile");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert!(out.len() >= 40, "the corpus is there: {}", out.len());
    out
}

fn new_game(parent: &Path, id: &str) -> PathBuf {
    let players = parent.join("players.toml");
    std::fs::write(&players, PLAYERS).unwrap();
    let dir = parent.join(id);
    bin()
        .args(["new", "--house-seating"])
        .arg(&dir)
        .args(["--scenario", "1805", "--id", id, "--players"])
        .arg(&players)
        .assert()
        .success();
    dir
}

fn no_panic(what: &str, out: &std::process::Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert_ne!(out.status.code(), Some(2), "{what}: exit 2: {err}");
    assert_ne!(out.status.code(), None, "{what}: killed by a signal: {err}");
}

/// Every message is archived, marked processed and journalled; one put
/// aside is in the quarantine with its reason; nothing waits in `new/`.
fn nothing_lost(game: &Path, corpus: &[(String, Vec<u8>)]) {
    let g = GameDir::new(game);
    let new: Vec<_> = std::fs::read_dir(g.inbox().join("new")).unwrap().collect();
    assert!(new.is_empty(), "left unprocessed: {new:?}");
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    let quarantine = game.join("mail/quarantine");
    for (name, raw) in corpus {
        let hash = empereur::mail::sha256_hex(raw);
        assert!(
            g.inbox().join("cur").join(format!("{hash}:2,S")).exists(),
            "{name}: not archived and marked processed"
        );
        let decisions: Vec<&str> = journal
            .lines()
            .filter(|l| l.contains(&format!("ingest {}", &hash[..12])))
            .collect();
        assert!(!decisions.is_empty(), "{name}: no journal line");
        assert!(
            decisions.iter().all(|l| !l.contains("not stored")),
            "{name}: left pending: {decisions:?}"
        );
        if decisions.iter().any(|l| l.contains("quarantined")) {
            assert!(quarantine.join(format!("{hash}.eml")).exists(), "{name}");
            let reason = std::fs::read_to_string(quarantine.join(format!("{hash}.reason"))).unwrap();
            assert!(!reason.trim().is_empty(), "{name}: a reason beside it");
        }
    }
}

/// What the game queued is safe to send: headers within 998 octets with
/// no stray CR, LF or NUL, one recipient (a copy to the player of record
/// at most), and text that shows no raw control character or bidi
/// override, whatever the message it answers held.
fn replies_are_clean(game: &Path) -> usize {
    let outbox = game.join("mail/outbox");
    let mut n = 0;
    for e in std::fs::read_dir(&outbox).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|e| e != "eml") {
            continue;
        }
        n += 1;
        let raw = std::fs::read(&p).unwrap();
        let end = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a header block");
        let head = &raw[..end];
        for line in head.split(|b| *b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            assert!(
                line.len() <= 998,
                "{}: header line of {} octets",
                p.display(),
                line.len()
            );
            assert!(
                !line.iter().any(|b| *b == b'\r' || *b == 0),
                "{}: stray CR or NUL in {:?}",
                p.display(),
                String::from_utf8_lossy(line)
            );
        }
        let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let to = m.to().map(|a| a.iter().count()).unwrap_or(0);
        let cc = m.cc().map(|a| a.iter().count()).unwrap_or(0);
        assert!(to == 1 && cc <= 1, "{}: {to} To, {cc} Cc", p.display());
        let text = m.body_text(0).unwrap_or_default();
        let bad = text.chars().find(|c| {
            (c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
                || matches!(*c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        });
        assert!(bad.is_none(), "{}: raw {bad:?} in the reply text", p.display());
    }
    n
}

/// Each message on its own through the pipe, as a mail server delivers
/// it: exit 0 for every one (archived and answered), never 2 or 75.
#[test]
fn every_hostile_message_through_the_pipe_is_archived_and_answered_or_put_aside() {
    let corpus = corpus();
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let mut verdicts: BTreeMap<String, String> = BTreeMap::new();
    for (name, raw) in &corpus {
        let out = bin()
            .env("EMPEREUR_LOCK_WAIT", "5")
            .args(["ingest", "--game"])
            .arg(&game)
            .arg("-")
            .write_stdin(raw.clone())
            .output()
            .unwrap();
        no_panic(name, &out);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        verdicts.insert(name.clone(), String::from_utf8_lossy(&out.stdout).trim().to_string());
    }
    nothing_lost(&game, &corpus);
    let replies = replies_are_clean(&game);
    // The corpus is not all one kind: orders accepted, refused, automatic
    // mail ignored, and unanswerable senders put aside all occur.
    for kind in ["accepted for", "refused:", "ignored", "quarantined"] {
        assert!(
            verdicts.values().any(|v| v.contains(kind)),
            "no message was {kind}: {verdicts:#?}"
        );
    }
    assert!(replies > 0);
    // The same bytes again (a server's redelivery): skipped, nothing
    // queued, nothing decided twice.
    let g = GameDir::new(&game);
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    let queued = std::fs::read_dir(g.outbox()).unwrap().count();
    for (name, raw) in &corpus {
        let out = bin()
            .args(["ingest", "--game"])
            .arg(&game)
            .arg("-")
            .write_stdin(raw.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}");
    }
    let again = std::fs::read_to_string(g.journal()).unwrap();
    let added: Vec<&str> = again[journal.len()..].lines().collect();
    assert_eq!(added.len(), corpus.len());
    assert!(
        added.iter().all(|l| l.contains(": duplicate of a processed message")),
        "{added:#?}"
    );
    assert_eq!(std::fs::read_dir(g.outbox()).unwrap().count(), queued);
}

/// All of it at once from a Maildir, and through a host of games: one
/// message never stops the others (exit 0 or 1, never 2), every message
/// is accounted for, and a second run finds nothing to do.
#[test]
fn the_hostile_corpus_from_a_maildir_and_across_games_stops_nothing() {
    let corpus = corpus();
    let tmp = tempfile::tempdir().unwrap();
    let maildir = tmp.path().join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    for (i, (_, raw)) in corpus.iter().enumerate() {
        std::fs::write(maildir.join("new").join(format!("{i}.hostile")), raw).unwrap();
    }
    let game = new_game(tmp.path(), "demo");
    let out = bin()
        .args(["ingest", "--game"])
        .arg(&game)
        .arg("--maildir")
        .arg(&maildir)
        .output()
        .unwrap();
    no_panic("maildir", &out);
    nothing_lost(&game, &corpus);
    replies_are_clean(&game);
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    let quarantined = journal.matches(": quarantined: ").count();
    assert!(quarantined > 0);
    let out = bin()
        .args(["ingest", "--game"])
        .arg(&game)
        .arg("--maildir")
        .arg(&maildir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert_eq!(
        journal.matches(": quarantined: ").count(),
        quarantined,
        "a quarantined message read again from the Maildir is not put aside again"
    );
    // Named on purpose, a quarantined message is processed again.
    let held = std::fs::read_dir(game.join("mail/quarantine"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "eml"))
        .expect("the corpus has an unanswerable sender");
    let out = bin().args(["ingest", "--game"]).arg(&game).arg(&held).output().unwrap();
    no_panic("quarantined file", &out);
    let after = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert_eq!(after.matches(": quarantined: ").count(), quarantined + 1);

    // A host of two games; each message goes to one game or to the
    // host's own journal, never to both, never nowhere.
    let host = tmp.path().join("host");
    std::fs::create_dir_all(&host).unwrap();
    let a = new_game(&host, "demo");
    let b = new_game(&host, "waterloo");
    let out = bin()
        .args(["ingest", "--games"])
        .arg(&host)
        .arg("--maildir")
        .arg(&maildir)
        .output()
        .unwrap();
    no_panic("games", &out);
    let mut archived: BTreeMap<String, usize> = BTreeMap::new();
    for g in [&a, &b] {
        let inbox = GameDir::new(g).inbox();
        assert_eq!(std::fs::read_dir(inbox.join("new")).unwrap().count(), 0);
        for e in std::fs::read_dir(inbox.join("cur")).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            *archived.entry(name.split(':').next().unwrap().to_string()).or_default() += 1;
        }
        replies_are_clean(g);
    }
    let host_journal = std::fs::read_to_string(GameDir::new(&host).journal()).unwrap_or_default();
    for (name, raw) in &corpus {
        let hash = empereur::mail::sha256_hex(raw);
        let in_games = archived.get(&hash).copied().unwrap_or(0);
        assert!(in_games <= 1, "{name}: stored in {in_games} games");
        assert!(
            in_games == 1 || host_journal.contains(&hash[..12]),
            "{name}: in no game and not in the host's journal"
        );
    }
}
