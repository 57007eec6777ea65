//! `empereur games --root DIR` and `status --games DIR`: one line per
//! hosted game (phase, deadline, who is in, late, paused), an unreadable
//! game named with its reason while the others are still listed (exit 2).
#![allow(clippy::disallowed_methods)] // tests read and write files

use assert_cmd::Command;
use std::path::Path;

use crate::players_common::new_game;

fn empereur(args: &[&str], now: &str) -> (i32, String, String) {
    let out = Command::cargo_bin("empereur")
        .unwrap()
        .args(args)
        .env("EMPEREUR_NOW", now)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A host with three games: `a` without a clock yet, `b` paused, `c`
/// with its clock started at `start`; and a directory that is no game.
fn host(root: &Path, start: &str) {
    for name in ["a", "b", "c"] {
        let made = new_game(root);
        std::fs::rename(&made, root.join(name)).unwrap();
    }
    std::fs::create_dir(root.join("notes")).unwrap();
    let g = |n: &str| root.join(n).display().to_string();
    assert_eq!(empereur(&["pause", "--game", &g("b")], start).0, 0);
    assert_eq!(empereur(&["extend", "--game", &g("c"), "--hours", "0"], start).0, 0);
}

#[test]
fn every_hosted_game_has_one_line_with_its_phase_deadline_and_who_is_late() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    host(root, "2026-11-30T10:00:00Z");
    let r = root.display().to_string();

    // Shortly after: c waits for France before its deadline.
    let (code, out, err) = empereur(&["games", "--root", &r], "2026-11-30T11:00:00Z");
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "one line per game, none for notes/: {out}");
    assert!(lines[0].starts_with("a "), "{out}");
    assert!(lines[0].contains("1805-fall-turn-start"), "{out}");
    assert!(
        lines[0].ends_with("in 0/1  no deadline yet; waiting for france"),
        "{out}"
    );
    assert!(lines[1].starts_with("b ") && lines[1].ends_with("paused"), "{out}");
    assert!(lines[2].ends_with("in 0/1  waiting for france"), "{out}");
    assert!(lines[2].contains(" 2026-"), "c has a deadline: {out}");

    // A month later c is due with France late; b stays paused.
    let (code, out, _) = empereur(&["status", "--games", &r], "2026-12-30T11:00:00Z");
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[1].ends_with("paused"), "{out}");
    assert!(lines[2].ends_with("due now; late: france"), "{out}");

    let (code, out, _) = empereur(&["games", "--root", &r, "--format", "json"], "2026-12-30T11:00:00Z");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let c = &v["games"][2];
    assert_eq!(c["dir"], "c");
    assert_eq!(c["game"], "demo");
    assert_eq!(c["state"], "due");
    assert_eq!(c["late"][0], "france");
    assert_eq!(v["games"][1]["state"], "paused");
    assert!(c["deadline"].as_str().unwrap().starts_with("2026-"), "{out}");
}

#[test]
fn an_unreadable_game_is_named_and_the_others_are_still_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    host(root, "2026-11-30T10:00:00Z");
    std::fs::write(root.join("b/game.toml"), "format = \"not a game\"\n").unwrap();
    let (code, out, err) = empereur(
        &["games", "--root", &root.display().to_string()],
        "2026-11-30T11:00:00Z",
    );
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(
        out.lines().nth(1).unwrap().starts_with("b            cannot be read:"),
        "{out}"
    );
    assert!(out.lines().nth(2).unwrap().contains("waiting for france"), "{out}");
    assert!(err.contains("1 game(s) could not be read: b"), "{err}");
}
