#![allow(clippy::disallowed_methods)] // tests read and write game files
//! Tamper tests: each change to a real game directory makes
//! `empereur verify` exit 1 with a line naming exactly what and where.

use crate::dice_common::*;
use empereur::ops::verify::{VerifyOptions, verify_game_with};
use empereur::store::GameDir;
use empereur::store::history::{DiceLog, sha256_hex};
use std::fs;

fn lines(out: &str) -> Vec<&str> {
    out.lines().collect()
}

fn assert_line(out: &str, want: &str) {
    assert!(out.lines().any(|l| l == want), "no line\n  {want}\nin\n{out}");
}

#[test]
fn an_untouched_game_verifies_and_lists_manual_rolls() {
    let (_t, g, names) = played();
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        lines(&out).last().copied(),
        Some("ok: 5 entries, 9 committed roll(s), 3 manual roll(s)")
    );
    let manual = &names[3];
    assert_line(
        &out,
        &format!(
            "note: {manual}: roll 'land-battle/1806-spring-turn-start/1/round-1/defender' d10 = 10 is manual (entered by the moderator, not committed)"
        ),
    );
    // Replaying with the same engine gives the same states byte for byte.
    let r = verify_game_with(
        &GameDir::new(&g),
        &VerifyOptions {
            replay: true,
            entries: vec![],
        },
        engine,
    )
    .unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!(r.replayed, 4);
}

#[test]
fn a_changed_die_result_is_named_by_entry_and_purpose() {
    let (_t, g, names) = played();
    let e = &names[2];
    let path = entry(&g, e).join("dice.toml");
    let log: DiceLog = toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let first = &log.rolls[0];
    let other = if first.result == 10 { 1 } else { first.result + 1 };
    edit(&path, |t| {
        t.replacen(
            &format!("result = {}\n", first.result),
            &format!("result = {other}\n"),
            1,
        )
    });
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert_line(
        &out,
        &format!(
            "{e}: roll '{}': d10 recorded as {other}, the committed dice give {}",
            first.purpose, first.result
        ),
    );
    assert!(
        out.contains(&format!("{e}: dice.toml was changed after it was recorded")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{e}: roll '{}': outcome 'battle' (4.2) cites {}, the dice log says {other}",
            first.purpose, first.result
        )),
        "{out}"
    );
}

#[test]
fn a_consistently_rewritten_entry_breaks_the_link_of_the_next() {
    let (_t, g, names) = played();
    let e = &names[0];
    let path = entry(&g, e).join("dice.toml");
    let log: DiceLog = toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let r = log.rolls[2].clone();
    let other = if r.result == 6 { 1 } else { r.result + 1 };
    let old_hash = sha256_hex(&fs::read(&path).unwrap());
    let mut forged = log.clone();
    forged.rolls[2].result = other;
    fs::write(&path, toml::to_string(&forged).unwrap()).unwrap();
    // The forger updates the recorded hash of dice.toml too.
    let new_hash = sha256_hex(&fs::read(&path).unwrap());
    edit(&entry(&g, e).join("entry.toml"), |t| t.replace(&old_hash, &new_hash));
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("{e}: roll '{}': d6 recorded as {other}", r.purpose)),
        "{out}"
    );
    assert!(
        out.contains(&format!("{}: entry.toml names previous ", names[1]))
            && out.contains(&format!("but entry {e} hashes to ")),
        "{out}"
    );
}

#[test]
fn a_dropped_roll_is_named_by_the_outcome_citing_it_and_by_replay() {
    let (_t, g, names) = played();
    let e = &names[4];
    let path = entry(&g, e).join("dice.toml");
    let text = fs::read_to_string(&path).unwrap();
    let mut log: DiceLog = toml::from_str(&text).unwrap();
    let dropped = log.rolls.remove(2);
    fs::write(&path, toml::to_string(&log).unwrap()).unwrap();
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert_line(
        &out,
        &format!(
            "{e}: roll '{}': outcome 'event' (5.0) cites it = {}, but it is not in the dice log",
            dropped.purpose, dropped.result
        ),
    );
    let r = verify_game_with(
        &GameDir::new(&g),
        &VerifyOptions {
            replay: true,
            entries: vec![e.clone()],
        },
        engine,
    )
    .unwrap();
    let msgs: Vec<String> = r.problems.iter().map(|p| p.to_string()).collect();
    assert!(
        msgs.contains(&format!(
            "{e}: roll '{}': replay asks for it, but it is not in the dice log",
            dropped.purpose
        )),
        "{msgs:?}"
    );
}

#[test]
fn a_reused_seed_is_named() {
    let (_t, g, names) = played();
    let first = fs::read(entry(&g, &names[0]).join("seed")).unwrap();
    fs::write(entry(&g, &names[2]).join("seed"), first).unwrap();
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert_line(
        &out,
        &format!(
            "{}: the seed was already used by entry {} for another commitment (a reused seed)",
            names[2], names[0]
        ),
    );
    assert!(
        out.contains(&format!(
            "{}: the revealed seed does not match the commitment",
            names[2]
        )),
        "{out}"
    );
}

#[test]
fn an_order_changed_after_resolution_is_named() {
    let (_t, g, names) = played();
    let e = &names[1];
    edit(&entry(&g, e).join("orders/austria.toml"), |t| {
        t.replace("phoned in", "phoned in late")
    });
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "{e}: orders/austria.toml was changed after it was recorded (SHA-256 "
        )),
        "{out}"
    );
}

#[test]
fn an_edited_state_file_is_named() {
    let (_t, g, names) = played();
    // What it says names the line, the table and both values.
    let text = std::fs::read_to_string(g.join("state.toml")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("gold = ")).unwrap();
    let gold = lines[at].strip_prefix("gold = ").unwrap().to_string();
    let table = lines[..at]
        .iter()
        .rev()
        .find(|l| l.starts_with('['))
        .unwrap()
        .to_string();
    edit(&g.join("state.toml"), |t| t.replacen("gold = ", "gold = 1", 1));
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert_line(
        &out,
        &format!(
            "state.toml: it is not the state-after.toml of entry {} (changed after resolution): line {} in {table} reads `gold = 1{gold}`, the entry has `gold = {gold}`",
            names[4],
            at + 1
        ),
    );
}

#[test]
fn an_edited_recorded_state_is_named() {
    let (_t, g, names) = played();
    let e = &names[2];
    edit(&entry(&g, e).join("state-after.toml"), |t| {
        t.replacen("gold = ", "gold = 1", 1)
    });
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("{e}: state-after.toml was changed after it was recorded")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{}: state-before.toml is not the state-after.toml of entry {e}",
            names[3]
        )),
        "{out}"
    );
}

#[test]
fn a_deleted_entry_is_named() {
    let (_t, g, names) = played();
    fs::remove_dir_all(entry(&g, &names[2])).unwrap();
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert_line(
        &out,
        "history: entry 0003 is missing (history/head.toml counts 5 entries)",
    );

    let (_t2, g2, names2) = played();
    fs::remove_dir_all(entry(&g2, &names2[4])).unwrap();
    let (code, out) = verify(&g2);
    assert_eq!(code, 1, "{out}");
    assert_line(
        &out,
        "history: entry 0005 is missing (history/head.toml counts 5 entries)",
    );
}

#[test]
fn verify_can_be_limited_to_entries() {
    let (_t, g, names) = played();
    edit(&entry(&g, &names[1]).join("orders/austria.toml"), |t| {
        t.replace("phoned in", "x")
    });
    let out = bin().args(["verify", "--game"]).arg(&g).arg("0001").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let out = bin().args(["verify", "--game"]).arg(&g).arg("2").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}
