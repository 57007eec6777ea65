#![allow(clippy::disallowed_methods)] // tests read and write game files
//! One forgery per check of `empereur verify`, made by a forger who also
//! rewrites every hash the chain records (entry files, each entry's link
//! to the one before, the head), so that the check under test is the
//! only one that can see it: without that check, verify would say "ok".

use crate::dice_common::*;
use empereur::dice::{self, RollSource};
use empereur::store::history::{self, DiceLog, EntryRecord, Head, OutcomesFile, sha256_hex};
use empereur::store::{GameDir, phase};
use std::fs;
use std::path::{Path, PathBuf};

/// `verify` exits 1 and its only problem line is `want`.
fn only_problem(g: &Path, want: &str) {
    only_problems(g, &[want]);
}

/// `verify` exits 1 and its problem lines are `want`, in order.
fn only_problems(g: &Path, want: &[&str]) {
    let (code, out) = verify(g);
    assert_eq!(code, 1, "{out}");
    let problems: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with("note: ") && !l.starts_with("warning: ") && !l.contains(" problem(s): "))
        .collect();
    assert_eq!(problems, want, "\n{out}");
}

fn read_log(g: &Path, name: &str) -> DiceLog {
    toml::from_str(&fs::read_to_string(entry(g, name).join("dice.toml")).unwrap()).unwrap()
}

fn write_log(g: &Path, name: &str, log: &DiceLog) {
    fs::write(entry(g, name).join("dice.toml"), toml::to_string(log).unwrap()).unwrap();
}

#[test]
fn the_reseal_alone_leaves_a_game_that_verifies() {
    // The forgeries below rely on it: resealing an untouched game changes
    // nothing verify can see.
    let (_t, g, names) = played();
    reseal(&g, &names[0]);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_file_slipped_into_an_entry_is_named() {
    let (_t, g, names) = played();
    // Inside the orders/ directory of the moderator's entry.
    let e = &names[1];
    fs::write(entry(&g, e).join("orders/prussia.toml"), "orders = []\n").unwrap();
    only_problem(&g, &format!("{e}: orders/prussia.toml is not recorded in entry.toml"));
}

#[test]
fn a_scripted_die_in_a_history_is_named() {
    let (_t, g, names) = played();
    let e = &names[2];
    let mut log = read_log(&g, e);
    log.rolls[0].source = RollSource::Scripted;
    let purpose = log.rolls[0].purpose.clone();
    write_log(&g, e, &log);
    reseal(&g, e);
    only_problem(
        &g,
        &format!("{e}: roll '{purpose}' is scripted (a test die) in a game's history"),
    );
}

#[test]
fn a_roll_logged_twice_is_named() {
    let (_t, g, names) = played();
    let e = &names[4];
    let mut log = read_log(&g, e);
    let again = log.rolls[1].clone();
    log.rolls.push(again.clone());
    write_log(&g, e, &log);
    reseal(&g, e);
    only_problem(
        &g,
        &format!("{e}: roll '{}' appears twice in the dice log", again.purpose),
    );
}

/// A manual roll made impossible: set to `result` in the dice log and in
/// the outcome citing it, resealed.
fn impossible_manual_roll(result: u32) {
    let (_t, g, names) = played();
    let e = &names[3];
    let mut log = read_log(&g, e);
    let i = log
        .rolls
        .iter()
        .position(|r| r.source == RollSource::Manual && r.sides == 10)
        .expect("entry 4 holds manual d10 rolls");
    let purpose = log.rolls[i].purpose.clone();
    log.rolls[i].result = result;
    write_log(&g, e, &log);
    let path = entry(&g, e).join("outcomes.toml");
    let mut of: OutcomesFile = toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    for d in of.outcomes.iter_mut().flat_map(|o| o.dice.iter_mut()) {
        if d.purpose == purpose {
            d.result = result;
        }
    }
    fs::write(&path, toml::to_string(&of).unwrap()).unwrap();
    reseal(&g, e);
    only_problem(&g, &format!("{e}: roll '{purpose}': {result} is not a face of a d10"));
}

#[test]
fn a_die_face_above_the_sides_is_named() {
    impossible_manual_roll(11);
}

#[test]
fn a_die_face_of_zero_is_named() {
    // 2.42: a ten-sided die reads 0 as 10, so 0 is never a logged result.
    impossible_manual_roll(0);
}

#[test]
fn a_rewritten_head_is_named() {
    let (_t, g, names) = played();
    let dir = GameDir::new(&g);
    let head_path = history::head_path(&dir);
    let mut head: Head = toml::from_str(&fs::read_to_string(&head_path).unwrap()).unwrap();
    let forged = sha256_hex(b"a history that never was");
    let real = std::mem::replace(&mut head.head, forged.clone());
    fs::write(&head_path, toml::to_string(&head).unwrap()).unwrap();
    only_problem(
        &g,
        &format!(
            "history/head.toml: the head is {} but the last entry {} hashes to {}",
            &forged[..12],
            names[4],
            &real[..12]
        ),
    );
}

#[test]
fn a_head_naming_another_last_entry_is_named() {
    let (_t, g, names) = played();
    let dir = GameDir::new(&g);
    let head_path = history::head_path(&dir);
    let mut head: Head = toml::from_str(&fs::read_to_string(&head_path).unwrap()).unwrap();
    head.last = names[3].clone();
    fs::write(&head_path, toml::to_string(&head).unwrap()).unwrap();
    only_problem(
        &g,
        &format!(
            "history/head.toml: it names {} as the last entry, not {}",
            names[3], names[4]
        ),
    );
}

#[test]
fn an_open_phase_reopened_with_another_seed_is_named() {
    // The moderator swaps the open phase's seed for one of their choosing,
    // with its own (consistent) commitment: the last entry published
    // another one, and players hold that.
    let (_t, g, names) = played();
    let dir = GameDir::new(&g);
    let published = phase::record(&dir).unwrap().unwrap();
    let state = dir.load_state().unwrap();
    let forged = phase::open_with_seed(&dir, &state, &[7u8; dice::SEED_LEN], None).unwrap();
    only_problem(
        &g,
        &format!(
            "phase/commitment: it is {} but entry {} published {} for {}",
            &forged[..12],
            names[4],
            &published.commitment[..12],
            state.phase
        ),
    );
}

#[test]
fn a_phase_resolved_under_another_commitment_than_published_is_named() {
    // Entry 1 published the commitment of the phase entry 3 resolves; the
    // forger rewrites what entry 1 published (and every hash after it).
    let (_t, g, names) = played();
    let path = entry(&g, &names[0]).join("entry.toml");
    let mut rec: EntryRecord = toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let real = rec
        .next_commitment
        .clone()
        .expect("a resolution publishes the next commitment");
    let forged = sha256_hex(b"another commitment");
    rec.next_commitment = Some(forged.clone());
    fs::write(&path, toml::to_string(&rec).unwrap()).unwrap();
    reseal(&g, &names[0]);
    // The forged commitment also has no seed, so the seed chain misses it.
    let (_, out) = verify(&g);
    assert!(
        out.contains(&format!(
            "{}: the seed of the commitment {} it published was never revealed",
            names[0],
            &forged[..12]
        )),
        "{out}"
    );
    only_problems(
        &g,
        &[
            &format!(
                "{}: the phase was resolved under commitment {} but entry {} published {}",
                names[2],
                &real[..12],
                names[0],
                &forged[..12]
            ),
            &format!(
                "{}: the seed of the commitment {} it published was never revealed",
                names[0],
                &forged[..12]
            ),
        ],
    );
}

#[test]
fn a_first_entry_naming_a_previous_one_is_named() {
    let (_t, g, names) = played();
    let path = entry(&g, &names[0]).join("entry.toml");
    let mut rec: EntryRecord = toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    rec.previous = sha256_hex(b"an entry before the first");
    fs::write(&path, toml::to_string(&rec).unwrap()).unwrap();
    // Reseal from the second entry on: it names the forged first entry.
    reseal(&g, &names[1]);
    // docs/dice.md 6: the first entry names the genesis entry (entry 0).
    let dir = GameDir::new(&g);
    let genesis = history::genesis(&dir).unwrap().unwrap();
    let (_, bytes) = history::read_entry(&dir, &genesis).unwrap();
    let (forged, real) = (sha256_hex(b"an entry before the first"), sha256_hex(&bytes));
    only_problem(
        &g,
        &format!(
            "{}: entry.toml names previous {} but entry {genesis} hashes to {} (an earlier entry was changed or removed)",
            names[0],
            &forged[..12],
            &real[..12]
        ),
    );
}

#[test]
fn an_entry_renumbered_is_named() {
    let (_t, g, names) = played();
    let path = entry(&g, &names[1]).join("entry.toml");
    let mut rec: EntryRecord = toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    rec.number = 7;
    fs::write(&path, toml::to_string(&rec).unwrap()).unwrap();
    reseal(&g, &names[1]);
    only_problem(
        &g,
        &format!(
            "{}: entry.toml says entry 7 of phase {}, not {}",
            names[1], rec.phase, names[1]
        ),
    );
}

#[test]
fn a_missing_recorded_file_is_named() {
    // Removing a file the entry records is the one change the forger
    // cannot hide without rewriting entry.toml; here they do not.
    let (_t, g, names) = played();
    let e = &names[1];
    fs::remove_file(entry(&g, e).join("orders/austria.toml")).unwrap();
    only_problem(
        &g,
        &format!("{e}: orders/austria.toml is missing (entry.toml records it)"),
    );
}

#[test]
fn counts_of_committed_and_manual_rolls_are_exact() {
    // The summary line is what a player reads: 3 resolutions with 3
    // committed rolls each, one with 3 manual rolls.
    let (_t, g, names) = played();
    let r = empereur::ops::verify::verify_game(&GameDir::new(&g), &Default::default()).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!((r.entries, r.committed_rolls, r.manual_rolls), (5, 9, 3));
    assert_eq!(
        r.notes
            .iter()
            .filter(|n| n.starts_with(&format!("{}: ", names[3])))
            .count(),
        3
    );
}

#[test]
fn an_entry_beyond_the_head_is_named() {
    // A directory numbered after the last committed entry (a forger's
    // addition, or a leftover the head does not count).
    let (_t, g, names) = played();
    let extra = "0006-1807-spring-turn-start";
    let from = entry(&g, &names[4]);
    let to = g.join("history").join(extra);
    fs::create_dir(&to).unwrap();
    fs::copy(from.join("entry.toml"), to.join("entry.toml")).unwrap();
    only_problem(
        &g,
        &format!("{extra}: this entry is not in the chain (history/head.toml counts 5 entries)"),
    );
}

#[test]
fn a_head_counting_no_entries_over_a_history_is_named() {
    let (_t, g, names) = played();
    let dir = GameDir::new(&g);
    let head_path = history::head_path(&dir);
    let mut head: Head = toml::from_str(&fs::read_to_string(&head_path).unwrap()).unwrap();
    head.entries = 0;
    fs::write(&head_path, toml::to_string(&head).unwrap()).unwrap();
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    let genesis = history::genesis(&dir).unwrap().unwrap();
    let (_, bytes) = history::read_entry(&dir, &genesis).unwrap();
    let want = format!(
        "history/head.toml: it counts no entries, so its head must be {}",
        &sha256_hex(&bytes)[..12]
    );
    assert!(out.lines().any(|l| l == want), "{out}");
    for n in &names {
        assert!(
            out.lines()
                .any(|l| l == format!("{n}: this entry is not in the chain (history/head.toml counts 0 entries)")),
            "{out}"
        );
    }
    // With the head set to the genesis entry as well, the head itself is
    // consistent: only the uncounted entries are named.
    head.head = sha256_hex(&bytes);
    fs::write(&head_path, toml::to_string(&head).unwrap()).unwrap();
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("so its head must be"), "{out}");
}

#[test]
fn an_open_phase_seed_swapped_under_its_commitment_is_named() {
    // The secret seed of the open phase no longer matches the commitment
    // the players were sent (the moderator could then choose the dice).
    let (_t, g, _names) = played();
    let dir = GameDir::new(&g);
    let rec = phase::record(&dir).unwrap().unwrap();
    let other = [9u8; dice::SEED_LEN];
    fs::write(phase::seed_path(&dir), format!("{}\n", dice::to_hex(&other))).unwrap();
    let gives = dice::commitment(&rec.game, &rec.phase.to_string(), &other);
    only_problem(
        &g,
        &format!(
            "phase/seed: it does not match the commitment {} (it gives {})",
            &rec.commitment[..12],
            &gives[..12]
        ),
    );
}

/// Replay `g` with the engine.
fn replay(g: &Path) -> empereur::ops::verify::VerifyReport {
    empereur::ops::verify::verify_game_with(
        &GameDir::new(g),
        &empereur::ops::verify::VerifyOptions {
            replay: true,
            entries: vec![],
        },
        engine,
    )
    .unwrap()
}

/// Played game with outcome 1 of its third entry changed by `edit` and
/// the entry resealed (as a moderator or an older engine could have
/// written it); the entry's name.
fn with_first_outcome_edited(edit: impl FnOnce(&mut empereur::rules::Outcome)) -> (tempfile::TempDir, PathBuf, String) {
    let (t, g, names) = played();
    let e = names[2].clone();
    let path = entry(&g, &e).join("outcomes.toml");
    let mut of: OutcomesFile = toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut of.outcomes[0]);
    fs::write(&path, toml::to_string(&of).unwrap()).unwrap();
    reseal(&g, &e);
    (t, g, e)
}

#[test]
fn replay_accepts_outcomes_worded_otherwise_and_says_so() {
    // A game played by a build whose engine worded its sentences otherwise:
    // the same outcomes by kind and data, so it still verifies.
    let (_t, g, e) = with_first_outcome_edited(|o| {
        o.summary.push_str(" (and a fine day it was)");
    });
    let r = replay(&g);
    assert!(r.ok(), "{:?}", r.problems);
    let notes: Vec<&String> = r.notes.iter().filter(|n| n.contains("in wording only")).collect();
    assert_eq!(notes.len(), 1, "{:?}", r.notes);
    assert!(
        notes[0].starts_with(&format!(
            "{e}: replay: outcomes.toml differs from the re-adjudicated outcomes in wording only (1 outcome(s); the first: recorded `"
        )) && notes[0].contains("(and a fine day it was)`, replay gives `"),
        "{}",
        notes[0]
    );
    // Without the edit, replay agrees and says nothing about wording.
    let (_t2, g2, _) = played();
    let r = replay(&g2);
    assert!(r.ok() && !r.notes.iter().any(|n| n.contains("wording")), "{r:?}");
}

#[test]
fn replay_names_recorded_outcomes_whose_data_the_engine_does_not_give() {
    let (_t, g, e) = with_first_outcome_edited(|o| {
        *o.gold.entry(empereur::ids::PowerId::France).or_default() += 100;
        o.summary.push_str(" (and a fine day it was)");
    });
    let r = replay(&g);
    let msgs: Vec<String> = r.problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(
        msgs[0].starts_with(&format!(
            "{e}: replay: outcomes.toml differs from the re-adjudicated outcomes: outcome 1 ("
        )) && msgs[0].ends_with(") differs in gold"),
        "{}",
        msgs[0]
    );
}

/// A game as `empereur new` made it before seed chains (docs/dice.md 1a):
/// no genesis entry, no seed chain, and the first phase opened with a
/// drawn seed, its commitment naming no entry (64 zeros).
fn created_before_seed_chains() -> (tempfile::TempDir, PathBuf) {
    let (t, g) = new_game();
    let dir = GameDir::new(&g);
    let genesis = history::genesis(&dir).unwrap().expect("a new game has a genesis entry");
    fs::remove_dir_all(entry(&g, &genesis)).unwrap();
    fs::remove_file(phase::seed_chain_path(&dir)).unwrap();
    fs::write(history::head_path(&dir), toml::to_string(&Head::default()).unwrap()).unwrap();
    phase::open(&dir, &dir.load_state().unwrap(), None).unwrap();
    (t, g)
}

#[test]
fn a_game_created_before_seed_chains_verifies_and_says_what_it_cannot_show() {
    // Its first phase still open: nothing resolved, no entry at all. It
    // is sound (no problem) and the note says why its seeds prove less.
    let (_t, g) = created_before_seed_chains();
    let dir = GameDir::new(&g);
    assert_eq!(phase::record(&dir).unwrap().unwrap().chain, history::ZERO);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.lines().any(|l| l
            == "note: no genesis entry (a game created before seed chains): each phase's seed was drawn when it opened, so nothing shows that a next seed was not redrawn before its commitment was mailed (docs/dice.md 1a)"),
        "{out}"
    );
    // Once resolved, the entry that opened the next phase is its chain:
    // still sound, still noted.
    resolve(&g, None);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("note: no genesis entry"), "{out}");
}

#[test]
fn a_game_created_before_seed_chains_whose_open_phase_names_an_opener_is_named() {
    // The commitment of its first phase names an entry (a forger's, or
    // one removed): no entry opened that phase, so its chain is 64 zeros.
    let (_t, g) = created_before_seed_chains();
    let dir = GameDir::new(&g);
    let mut rec = phase::record(&dir).unwrap().unwrap();
    rec.chain = sha256_hex(b"an entry no history holds");
    fs::write(phase::commitment_path(&dir), toml::to_string(&rec).unwrap()).unwrap();
    only_problem(
        &g,
        "phase/commitment: its chain must be 64 zeros: no entry opened the phase",
    );
}
