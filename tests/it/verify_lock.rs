#![allow(clippy::disallowed_methods)] // tests read and write game files
//! `empereur verify` on the orders lock (`lock.toml`, docs/dice.md "The
//! orders lock"), one check at a time (issue 36: one of its checks could
//! be removed and nothing failed). Each forgery edits one field of one
//! entry's lock and rewrites every hash the chain records, so that only
//! the lock check can see it: verify must exit 1 and name exactly that.

use crate::dice_common::*;
use empereur::ids::PowerId;
use empereur::store::GameDir;
use empereur::store::submission::{self, Submission};
use std::fs;
use std::path::{Path, PathBuf};

/// The problem lines of `verify` (not its notes, warnings or count).
fn problems(g: &Path) -> (i32, Vec<String>) {
    let (code, out) = verify(g);
    let lines = out
        .lines()
        .filter(|l| !l.starts_with("note: ") && !l.starts_with("warning: ") && !l.contains(" problem(s): "))
        .map(str::to_string)
        .collect();
    (code, lines)
}

/// Which entry a forgery edits: one of [`played`]'s (index), or the
/// resolution of a phase where France's player and the moderator (for
/// Russia) stored orders, whose lock has a table per power.
#[derive(Clone, Copy)]
enum Entry {
    Played(usize),
    WithOrders,
}

fn with_orders() -> (tempfile::TempDir, PathBuf, String) {
    let (t, g) = new_game();
    let dir = GameDir::new(&g);
    let state = dir.load_state().unwrap();
    for (power, by) in [
        (PowerId::France, "mail:ann@example.org"),
        (PowerId::Russia, "moderator"),
    ] {
        let sub = Submission {
            power,
            phase: state.phase,
            by: by.into(),
            received: "2026-01-01T10:00:00Z".into(),
            entropy: None,
            passed: false,
            orders: vec![],
        };
        submission::save(&dir, &sub).unwrap();
    }
    let name = resolve(&g, None);
    (t, g, name)
}

/// The game with the entry's lock edited by `forge` and the chain
/// resealed; verify's exit code and problems, and the entry's name.
fn forged(which: Entry, forge: impl FnOnce(String) -> String) -> (i32, Vec<String>, String) {
    let (_t, g, name) = match which {
        Entry::Played(i) => {
            let (t, g, names) = played();
            (t, g, names[i].clone())
        }
        Entry::WithOrders => with_orders(),
    };
    edit(&entry(&g, &name).join("lock.toml"), forge);
    reseal(&g, &name);
    let (code, lines) = problems(&g);
    (code, lines, name)
}

fn only(which: Entry, forge: impl FnOnce(String) -> String, want: &str) {
    let (code, lines, name) = forged(which, forge);
    assert_eq!(code, 1, "{lines:?}");
    assert_eq!(lines, vec![format!("{name}: {want}")]);
}

/// Top-level keys go before the first table of the file.
fn with_top_level(t: String, line: &str) -> String {
    format!("{line}\n{t}")
}

/// Replace the value of the first `key = "..."` line.
fn set_first(t: &str, key: &str, value: &str) -> String {
    let start = t
        .find(&format!("\n{key} = \""))
        .map(|i| i + 1)
        .or_else(|| t.starts_with(&format!("{key} = \"")).then_some(0))
        .unwrap_or_else(|| panic!("no {key} in\n{t}"));
    let end = start + t[start..].find('\n').unwrap();
    format!("{}{key} = \"{value}\"{}", &t[..start], &t[end..])
}

/// The lock without its `[power.NAME]` table.
fn drop_table(t: &str, power: &str) -> String {
    let head = format!("[power.{power}]\n");
    let start = t.find(&head).unwrap_or_else(|| panic!("no {head} in\n{t}"));
    let rest = &t[start + head.len()..];
    let end = rest.find("\n[").map(|i| start + head.len() + i + 1).unwrap_or(t.len());
    format!("{}{}", &t[..start], &t[end..])
}

#[test]
fn a_lock_of_another_commitment_is_named() {
    only(
        Entry::Played(2),
        |t| set_first(&t, "commitment", &"0".repeat(64)),
        "lock.toml locks another phase, commitment or re-resolution than the entry's",
    );
}

#[test]
fn a_lock_of_another_phase_is_named() {
    only(
        Entry::Played(2),
        |t| set_first(&t, "phase", "1815-fall-build"),
        "lock.toml locks another phase, commitment or re-resolution than the entry's",
    );
}

#[test]
fn a_lock_that_claims_a_re_resolution_is_named() {
    only(
        Entry::Played(2),
        |t| with_top_level(t, "redo_of = \"0001-resolve\""),
        "lock.toml locks another phase, commitment or re-resolution than the entry's",
    );
}

#[test]
fn a_lock_naming_a_beacon_the_entry_did_not_use_is_named() {
    only(
        Entry::Played(2),
        |t| with_top_level(t, "beacon_round = 5"),
        "lock.toml names another beacon round or signature than the entry's",
    );
}

#[test]
fn manual_dice_without_their_values_are_named() {
    // Entry 3 was resolved with manual dice "3,0,6".
    only(
        Entry::Played(3),
        |t| {
            let start = t.find("manual_dice = ").unwrap();
            let end = start + t[start..].find('\n').unwrap() + 1;
            format!("{}{}", &t[..start], &t[end..])
        },
        "lock.toml says dice = \"manual\" (manual_dice goes with manual)",
    );
}

#[test]
fn dice_of_no_known_kind_are_named() {
    only(
        Entry::Played(2),
        |t| set_first(&t, "dice", "loaded"),
        "lock.toml says dice = \"loaded\" (manual_dice goes with manual)",
    );
}

#[test]
fn a_lock_saying_manual_over_committed_rolls_is_named() {
    only(
        Entry::Played(2),
        |t| with_top_level(set_first(&t, "dice", "manual"), "manual_dice = \"3,0,6\""),
        "lock.toml says the dice are manual, the dice log does not",
    );
}

#[test]
fn a_lock_of_another_receipt_is_named() {
    only(
        Entry::WithOrders,
        |t| {
            let i = t.find("receipt = \"").unwrap() + 11;
            format!("{}{}{}", &t[..i], "0".repeat(64), &t[i + 64..])
        },
        "lock.toml locks another receipt for france",
    );
}

#[test]
fn a_lock_of_other_entropy_is_named() {
    only(
        Entry::WithOrders,
        |t| set_first(&t, "entropy", "typed by nobody"),
        "lock.toml locks other entropy for france",
    );
}

#[test]
fn orders_resolved_but_not_locked_are_named() {
    only(
        Entry::WithOrders,
        |t| drop_table(&t, "russia"),
        "orders/russia.toml was resolved but is not in lock.toml",
    );
}

#[test]
fn a_lock_of_orders_the_entry_does_not_hold_is_named() {
    only(
        Entry::WithOrders,
        |t| {
            format!(
                "{t}\n[power.prussia]\nby = \"player\"\nreceipt = \"{}\"\nentropy = \"\"\n",
                "0".repeat(64)
            )
        },
        "lock.toml locks orders of prussia that the entry does not hold",
    );
}

#[test]
fn the_untouched_locks_verify() {
    // The forgeries above rely on it: the locks as written pass, manual
    // and committed, with a player's and the moderator's orders.
    let (_t, g, _) = played();
    assert_eq!(problems(&g).0, 0);
    let (_t, g, name) = with_orders();
    let lock = fs::read_to_string(entry(&g, &name).join("lock.toml")).unwrap();
    assert!(
        lock.contains("[power.france]") && lock.contains("[power.russia]"),
        "{lock}"
    );
    assert_eq!(problems(&g).0, 0);
}
