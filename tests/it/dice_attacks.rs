#![allow(clippy::disallowed_methods)] // tests read and write game files
//! A moderator who wants a better roll (docs/dice.md, "What the moderator
//! cannot do"): each attack is a test.

use crate::dice_common::*;
use empereur::dice::{self, Committed, Entropy};
use empereur::ids::PowerId;
use empereur::ops::moderate::{preview_game_with, undo_game};
use empereur::store::history::{self, DiceLog, EntropyFile, EntryRecord, OutcomesFile};
use empereur::store::submission::{self, Submission};
use empereur::store::{GameDir, phase};
use std::fs;
use std::path::{Path, PathBuf};

fn submit(g: &Path, power: PowerId, by: &str, received: &str, entropy: Option<&str>) -> String {
    let dir = GameDir::new(g);
    let state = dir.load_state().unwrap();
    let sub = Submission {
        power,
        phase: state.phase,
        by: by.into(),
        received: received.into(),
        entropy: entropy.map(str::to_string),
        passed: false,
        orders: vec![],
    };
    submission::save(&dir, &sub).unwrap()
}

fn record(g: &Path, name: &str) -> EntryRecord {
    history::read_entry(&GameDir::new(g), name).unwrap().0
}

fn toml_of<T: serde::de::DeserializeOwned>(path: &Path) -> T {
    toml::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_accepted_submission_gives_entropy_the_moderator_did_not_choose() {
    let (_t, g) = new_game();
    let r_fr = submit(
        &g,
        PowerId::France,
        "mail:ann@example.org",
        "2026-01-01T10:00:00Z",
        None,
    );
    let r_at = submit(
        &g,
        PowerId::Austria,
        "mail:bob@example.org",
        "2026-01-01T11:00:00Z",
        Some("for the Emperor"),
    );
    let name = resolve(&g, None);
    let e: EntropyFile = toml_of(&entry(&g, &name).join("entropy.toml"));
    // No ENTROPY line: the receipt alone; a typed line follows the receipt.
    assert_eq!(e.entropy[&PowerId::France], r_fr);
    assert_eq!(e.entropy[&PowerId::Austria], format!("{r_at} for the Emperor"));
    assert_eq!(e.entropy.len(), 2);
    // The receipt is the hash of the file kept in the entry.
    let bytes = fs::read(entry(&g, &name).join("orders/france.toml")).unwrap();
    assert_eq!(submission::receipt_of(&bytes), r_fr);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    // Entropy that is not the receipts is caught.
    let path = entry(&g, &name).join("entropy.toml");
    let forged = EntropyFile {
        entropy: [(PowerId::France, "chosen by the moderator".to_string())].into(),
    };
    fs::write(&path, toml::to_string(&forged).unwrap()).unwrap();
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "{name}: entropy.toml is not each power's receipt and typed text (differs for france, austria)"
        )),
        "{out}"
    );
}

#[test]
fn undo_never_rerolls_and_is_named_after_the_phase_it_rolls_back() {
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    resolve(&g, None);
    submit(
        &g,
        PowerId::France,
        "mail:ann@example.org",
        "2026-01-02T10:00:00Z",
        None,
    );
    submit(
        &g,
        PowerId::Austria,
        "mail:bob@example.org",
        "2026-01-02T11:00:00Z",
        Some("x"),
    );
    let first = resolve(&g, None);
    let first_rec = record(&g, &first);
    let dice_first = fs::read(entry(&g, &first).join("dice.toml")).unwrap();
    let abandoned = phase::record(&dir).unwrap().unwrap();

    let u = undo_game(&dir, "Austria's orders were entered for the wrong corps")
        .unwrap()
        .unwrap();
    assert_eq!(u.undone, first);
    // Named after the phase it rolls back, not the phase that was open.
    assert_eq!(u.entry, format!("0003-{}", first_rec.phase));
    let undo = record(&g, &u.entry);
    assert_eq!(undo.kind, "undo");
    assert_eq!(undo.undone.as_deref(), Some(first.as_str()));
    assert_eq!(undo.abandoned_phase, Some(abandoned.phase));
    assert_eq!(
        undo.abandoned_commitment.as_deref(),
        Some(abandoned.commitment.as_str())
    );
    // The reopened phase keeps its commitment: the one already mailed.
    let reopened = phase::record(&dir).unwrap().unwrap();
    assert_eq!(reopened.phase, first_rec.phase);
    assert_eq!(Some(reopened.commitment.clone()), first_rec.commitment);
    assert_eq!(undo.next_commitment, first_rec.commitment);
    // The abandoned seed is revealed, as every seed file, with a newline.
    let seed_text = fs::read_to_string(entry(&g, &u.entry).join("abandoned-seed")).unwrap();
    assert!(seed_text.ends_with('\n') && seed_text.len() == 65, "{seed_text:?}");

    // Austria sends new orders (a new receipt): the dice do not change.
    submit(
        &g,
        PowerId::Austria,
        "mail:bob@example.org",
        "2026-01-02T12:00:00Z",
        Some("y"),
    );
    let again = resolve(&g, None);
    assert_eq!(fs::read(entry(&g, &again).join("dice.toml")).unwrap(), dice_first);
    assert_eq!(
        fs::read(entry(&g, &again).join("entropy.toml")).unwrap(),
        fs::read(entry(&g, &first).join("entropy.toml")).unwrap()
    );
    let rec = record(&g, &again);
    assert_eq!(rec.redo_of.as_deref(), Some(first.as_str()));
    assert_eq!(rec.commitment, first_rec.commitment);
    let o: OutcomesFile = toml_of(&entry(&g, &again).join("outcomes.toml"));
    assert_eq!(o.outcomes[0].kind.to_string(), "re-resolved");
    assert!(
        o.outcomes[0].summary.contains("orders or entropy changed for Austria"),
        "{}",
        o.outcomes[0].summary
    );
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");

    // A history where the re-resolution drew other dice is caught.
    let log_path = entry(&g, &again).join("entropy.toml");
    fs::write(&log_path, "[entropy]\nfrance = \"other\"\n").unwrap();
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "{again}: it redoes {first} but its entropy.toml differs from that entry's (a re-roll)"
        )),
        "{out}"
    );
}

#[test]
fn a_crashed_resolution_cannot_redraw_the_next_seed() {
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    // No mail, so no entropy: the next phase's rolls are the seed's alone.
    // A resolution interrupted before its commit point staged this seed…
    let next: empereur::ids::PhaseId = "1806-winter".parse().unwrap();
    let staged = phase::stage_next(&dir, "tamper", next, None).unwrap();
    // … and running it again opens the next phase under the same one.
    let name = resolve(&g, None);
    assert_eq!(record(&g, &name).next_commitment.as_deref(), Some(staged.as_str()));
    assert_eq!(phase::commitment(&dir).unwrap(), Some(staged));
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn preview_rolls_with_a_throwaway_seed_and_is_recorded() {
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    resolve(&g, None);
    submit(&g, PowerId::Russia, "moderator", "2026-01-02T10:00:00Z", Some("try 1"));
    let real = phase::read_seed(&dir).unwrap();
    let a = preview_game_with(&dir, engine).unwrap();
    let b = preview_game_with(&dir, engine).unwrap();
    assert_ne!(a.seed, dice::to_hex(&real));
    assert_ne!(a.seed, b.seed, "each preview rolls with a fresh seed");
    // The preview's dice are those of its throwaway seed.
    let receipt = submission::receipt(&dir, PowerId::Russia).unwrap().unwrap();
    // Orders the moderator enters add no entropy (docs/dice.md 2).
    assert!(!receipt.is_empty());
    let entropy = Entropy::new();
    let throwaway = dice::parse_hex32(&a.seed).unwrap();
    let purpose = format!("naval/{}/weather", a.phase);
    let roll = Committed::new(&throwaway, &entropy).peek(&purpose, 6);
    assert!(
        a.report.contains(&format!("{purpose} d6 = {roll} (committed)")),
        "{}",
        a.report
    );
    assert!(
        fs::read_to_string(g.join("journal.log"))
            .unwrap()
            .contains("with a throwaway seed (preview 2 of this phase)")
    );
    // The real resolution says that previews were run, and uses the real seed.
    let name = resolve(&g, None);
    let rec = record(&g, &name);
    assert!(rec.note.contains("2 preview(s)"), "{}", rec.note);
    assert!(
        rec.note.contains("orders entered by the moderator for: russia"),
        "{}",
        rec.note
    );
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
}

/// docs/dice.md 9: each preview is a `preview` entry of the history, so
/// deleting its record breaks the chain, and a note that hides previews
/// is caught.
#[test]
fn a_deleted_preview_record_is_reported_by_verify() {
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    preview_game_with(&dir, engine).unwrap();
    let previews: Vec<String> = history::list(&dir).unwrap().into_values().collect();
    assert_eq!(previews.len(), 1, "one preview entry");
    let kept = new_game();
    copy_tree(&g, &kept.1);
    // Deleted before the resolution: the chain is broken.
    fs::remove_dir_all(entry(&g, &previews[0])).unwrap();
    let name = resolve(&g, None);
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("history: entry {} is missing", &previews[0][..4])),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{name}: its note says 0 preview(s) were run, but the history records 1"
        )) || out.contains("is missing"),
        "{out}"
    );
    // Kept, the same resolution says so and verifies.
    let name = resolve(&kept.1, None);
    assert!(
        record(&kept.1, &name)
            .note
            .contains("1 preview(s) with throwaway seeds")
    );
    let (code, out) = verify(&kept.1);
    assert_eq!(code, 0, "{out}");
    // A note that hides the preview is caught (the entry resealed).
    let path = entry(&kept.1, &name).join("entry.toml");
    edit(&path, |t| {
        t.replace(
            "1 preview(s) with throwaway seeds were run before this resolution; ",
            "",
        )
    });
    reseal(&kept.1, &name);
    let (code, out) = verify(&kept.1);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "{name}: its note says 0 preview(s) were run, but the history records 1 preview entr(ies)"
        )),
        "{out}"
    );
}

fn copy_tree(from: &Path, to: &Path) {
    let _ = fs::remove_dir_all(to);
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
}

#[test]
fn preview_leaves_no_copy_of_the_game_or_its_seed_behind() {
    let (t, g) = new_game();
    let tmp = t.path().join("tmp");
    fs::create_dir(&tmp).unwrap();
    let seed = fs::read_to_string(g.join("phase/seed")).unwrap();
    let out = bin()
        .args(["preview", "--game"])
        .arg(&g)
        .env("TMPDIR", &tmp)
        .env("EMPEREUR_NOW", "2026-01-01T00:00:00Z")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("PREVIEW WITH A THROWAWAY SEED"), "{text}");
    assert!(!text.contains(seed.trim()), "{text}");
    let left: Vec<_> = fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "the preview left {left:?} behind");
    // The preview is recorded as a history entry of its own, no more.
    let listed: Vec<String> = history::list(&GameDir::new(&g)).unwrap().into_values().collect();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(record(&g, &listed[0]).kind, "preview");
}

#[test]
fn verify_replay_passes_on_a_phase_with_late_powers() {
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    let opts = empereur::ops::resolve::ResolveOptions {
        now: Some("2026-01-01T00:00:00Z".into()),
        late: vec![PowerId::Spain, PowerId::Ottoman],
        ..Default::default()
    };
    empereur::ops::resolve::resolve_game_with(&dir, &opts, engine).unwrap();
    let names: Vec<String> = history::list(&dir).unwrap().into_values().collect();
    assert_eq!(record(&g, &names[0]).late, vec![PowerId::Spain, PowerId::Ottoman]);
    let r = empereur::ops::verify::verify_game_with(
        &dir,
        &empereur::ops::verify::VerifyOptions {
            replay: true,
            entries: vec![],
        },
        engine,
    )
    .unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!(r.replayed, 1);
    let log: DiceLog = toml_of(&entry(&g, &names[0]).join("dice.toml"));
    assert_eq!(log.rolls.len(), 3);
}

/// Every queued outgoing mail whose subject contains `subject`.
/// Queue the mail of every phase resolved by hand (`empereur mail
/// --no-send`): the reports, with the orders lock, and the openings.
fn queue_mail(g: &Path) {
    bin()
        .args(["mail", "--no-send", "--game"])
        .arg(g)
        .env("EMPEREUR_NOW", "2026-01-01T00:00:00Z")
        .assert()
        .success();
}

fn outbox_mails(g: &Path, subject: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir(g.join("mail/outbox")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml") {
            let t = fs::read_to_string(&p).unwrap();
            // A long subject is folded onto a second header line.
            if t.replace("\r\n ", " ").contains(subject) {
                out.push(t);
            }
        }
    }
    out
}

#[test]
fn orders_the_moderator_enters_are_marked_in_the_lock_of_the_report_and_the_entry() {
    let (_t, g) = new_game();
    let r_ru = submit(&g, PowerId::Russia, "moderator", "2026-01-01T10:00:00Z", Some("try 6"));
    let r_fr = submit(
        &g,
        PowerId::France,
        "mail:ann@example.org",
        "2026-01-01T10:00:00Z",
        None,
    );
    let name = resolve(&g, None);
    queue_mail(&g);
    // (The subject: the first opening, mailed for the record, also
    // names "the report of" its entry.)
    let locks = outbox_mails(&g, ": report of 1805");
    // The lock is in every player's report and the moderator's.
    let config = GameDir::new(&g).load_config().unwrap();
    assert_eq!(locks.len(), config.players.len() + 1);
    for lock in &locks {
        let lock = lock.replace("=\r\n", "");
        let lock = lock.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(lock.contains("were locked: the phase was resolved"), "{lock}");
        assert!(lock.contains("russia: ENTERED BY THE MODERATOR"), "{lock}");
        assert!(lock.contains(&r_ru[..40]) && lock.contains(&r_fr[..40]), "{lock}");
        assert!(lock.contains("france: sent by the player"), "{lock}");
    }
    let rec = record(&g, &name);
    assert!(
        rec.note.contains("orders entered by the moderator for: russia"),
        "{}",
        rec.note
    );
    let lf: history::LockFile = toml_of(&entry(&g, &name).join("lock.toml"));
    assert_eq!(lf.powers[&PowerId::Russia].by, "moderator");
    assert_eq!(lf.powers[&PowerId::Russia].receipt, r_ru);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    // A lock that hides the moderator's hand is caught.
    let path = entry(&g, &name).join("lock.toml");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("by = \"moderator\"", "by = \"player\"");
    fs::write(&path, text).unwrap();
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "{name}: lock.toml does not say who entered the orders of russia (moderator)"
        )),
        "{out}"
    );
}

/// A player's mailbox: a copy of every mail queued so far.
/// Russia's player's mailbox: the queued mails addressed to them (each
/// recipient gets a copy of their own, showing their address alone).
fn mailbox_copy(g: &Path, to: &Path) {
    queue_mail(g);
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(g.join("mail/outbox")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml")
            && fs::read_to_string(&p).unwrap().contains("<russia@demo.example.org>")
        {
            fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

fn verify_mails(g: &Path, mails: &Path) -> (i32, String) {
    let out = bin()
        .args(["verify", "--power", "russia", "--mails"])
        .arg(mails)
        .arg("--game")
        .arg(g)
        .output()
        .unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
}

/// Reseal the history so that it ends after entry `keep`: what a
/// moderator who wants to hide the later entries would do. Every
/// file-only check passes afterwards.
fn truncate_and_reseal(g: &Path, keep: u32) {
    let dir = GameDir::new(g);
    let names = history::list(&dir).unwrap();
    // The moderator knows every seed: the next entry revealed the open one.
    let seed = fs::read_to_string(entry(g, &names[&(keep + 1)]).join("seed")).unwrap();
    for (n, name) in &names {
        if *n > keep {
            fs::remove_dir_all(entry(g, name)).unwrap();
        }
    }
    let last = &names[&keep];
    let (rec, bytes) = history::read_entry(&dir, last).unwrap();
    let head = history::Head {
        entries: keep,
        head: history::sha256_hex(&bytes),
        last: last.clone(),
    };
    fs::write(g.join("history/head.toml"), toml::to_string(&head).unwrap()).unwrap();
    fs::copy(entry(g, last).join("state-after.toml"), g.join("state.toml")).unwrap();
    fs::write(phase::seed_path(&dir), seed).unwrap();
    let pr = phase::PhaseRecord {
        game: rec.game.clone(),
        phase: rec.next_phase.unwrap(),
        commitment: rec.next_commitment.clone().unwrap(),
        chain: head.head.clone(),
        beacon: None,
        beacon_round: None,
        dice: None,
    };
    fs::write(phase::commitment_path(&dir), toml::to_string(&pr).unwrap()).unwrap();
}

#[test]
fn a_resealed_truncated_history_is_caught_by_a_players_mailbox() {
    let (t, g) = new_game();
    for _ in 0..4 {
        submit(&g, PowerId::Russia, "mail:cy@example.org", "2026-01-01T10:00:00Z", None);
        resolve(&g, None);
    }
    let mails = t.path().join("russia-mail");
    mailbox_copy(&g, &mails);
    let (code, out) = verify_mails(&g, &mails);
    assert_eq!(code, 0, "{out}");
    assert!(
        // The first phase's opening and the mail of each phase resolved.
        out.contains("the mailbox of Russia holds 5 mail(s) of the game"),
        "{out}"
    );

    truncate_and_reseal(&g, 2);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "the files alone cannot show it: {out}");
    let (code, out) = verify_mails(&g, &mails);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("it was sent when the history had 4 entries, but the history has 2: it was truncated"),
        "{out}"
    );
}

#[test]
fn a_resealed_rewritten_history_is_caught_by_a_players_mailbox() {
    let (t, g) = new_game();
    for _ in 0..3 {
        resolve(&g, None);
    }
    let mails = t.path().join("russia-mail");
    mailbox_copy(&g, &mails);
    // Rewrite history from entry 2 on: drop it and resolve the phase again
    // under the seed the moderator knows, with other entropy.
    truncate_and_reseal(&g, 1);
    submit(&g, PowerId::Russia, "moderator", "2026-01-01T10:00:00Z", Some("better"));
    resolve(&g, None);
    resolve(&g, None);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "the files alone cannot show it: {out}");
    let (code, out) = verify_mails(&g, &mails);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the history was rewritten"), "{out}");
}

#[test]
fn a_player_verifies_the_exported_history_against_their_mailbox() {
    let (t, g) = new_game();
    for _ in 0..3 {
        submit(
            &g,
            PowerId::Russia,
            "mail:cy@example.org",
            "2026-01-01T10:00:00Z",
            Some("snow"),
        );
        resolve(&g, None);
    }
    let mails = t.path().join("russia-mail");
    mailbox_copy(&g, &mails);
    let tarball = t.path().join("history.tar");
    let out = bin()
        .args(["export-history", "--game"])
        .arg(&g)
        .arg("--out")
        .arg(&tarball)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let copy = t.path().join("copy");
    tar::Archive::new(fs::File::open(&tarball).unwrap())
        .unpack(&copy)
        .unwrap();
    // Nothing secret of the open phase, nothing of the players' accounts.
    let seed = fs::read_to_string(g.join("phase/seed")).unwrap();
    assert!(!copy.join("phase/seed").exists() && !copy.join("game.toml").exists());
    let all = fs::read(&tarball).unwrap();
    assert!(
        !all.windows(64).any(|w| w == seed.trim().as_bytes()),
        "the open phase's seed is in the tarball"
    );
    let (code, out) = verify_mails(&copy, &mails);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("an exported history"), "{out}");
    // The same export twice gives the same bytes.
    let again = t.path().join("again.tar");
    empereur::ops::export::export(&GameDir::new(&g), &again).unwrap();
    assert_eq!(fs::read(&again).unwrap(), all);
}

/// docs/dice.md 9: without mail and without a beacon, the moderator knew
/// the dice when the phase opened. verify tells every player which
/// resolutions were like that.
#[test]
fn verify_names_the_resolutions_whose_dice_the_moderator_could_foresee() {
    let (_t, g) = new_game();
    let quiet = resolve(&g, None);
    submit(
        &g,
        PowerId::Prussia,
        "mail:eve@example.org",
        "2026-01-01T10:00:00Z",
        None,
    );
    announce_physical_next(&g);
    let mailed = resolve(&g, None);
    let manual = resolve(&g, Some("3,0,6"));
    let r = empereur::ops::verify::verify_game(&GameDir::new(&g), &Default::default()).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    // Manual dice are flagged as manual, not as foreseeable committed dice.
    assert_eq!(r.foreseeable, vec![quiet.clone()], "{mailed} {manual}");
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("no entropy and no beacon") && out.contains(&quiet) && !out.contains(&format!("{mailed}\n")),
        "{out}"
    );
}

/// Every purpose rolled in both dice logs, with its result in each.
fn shared_rolls(a: &Path, b: &Path) -> Vec<(String, u32, u32)> {
    let la: DiceLog = toml_of(&a.join("dice.toml"));
    let lb: DiceLog = toml_of(&b.join("dice.toml"));
    la.rolls
        .iter()
        .filter_map(|r| {
            let o = lb.rolls.iter().find(|o| o.purpose == r.purpose)?;
            Some((r.purpose.clone(), r.result, o.result))
        })
        .collect()
}

fn only_entry(g: &Path) -> PathBuf {
    let names: Vec<String> = history::list(&GameDir::new(g)).unwrap().into_values().collect();
    entry(g, names.last().unwrap())
}

fn open_commitment(g: &Path) -> String {
    phase::record(&GameDir::new(g)).unwrap().unwrap().commitment
}

/// Issue 38: a moderator who autoplays copies of a live game with
/// different generator seeds, to keep the one whose dice he likes, gets
/// the same die for every purpose both ask for, and the same next
/// commitment; the orders are marked as his in the lock and the note.
#[test]
fn autoplay_grinding_on_copies_gives_the_same_die_for_every_shared_purpose() {
    let (t, g) = new_game();
    let copies: Vec<PathBuf> = (1..=4).map(|i| t.path().join(format!("x{i}"))).collect();
    for (i, x) in copies.iter().enumerate() {
        copy_tree(&g, x);
        bin()
            .args([
                "autoplay",
                "--phases",
                "1",
                "--seed",
                &(i * 7919 + 3).to_string(),
                "--game",
            ])
            .arg(x)
            .assert()
            .success();
    }
    let first = only_entry(&copies[0]);
    let mut compared = 0;
    for x in &copies[1..] {
        let shared = shared_rolls(&first, &only_entry(x));
        compared += shared.len();
        for (purpose, a, b) in shared {
            assert_eq!(a, b, "roll '{purpose}' differs between copies: {a} and {b}");
        }
        // The next phase may differ with the orders, never its seed.
        assert_eq!(
            fs::read(x.join("phase/seed")).unwrap(),
            fs::read(copies[0].join("phase/seed")).unwrap()
        );
    }
    assert!(compared > 0, "the copies share no purpose");
    let lock: history::LockFile = toml_of(&first.join("lock.toml"));
    assert!(!lock.powers.is_empty());
    for (p, l) in &lock.powers {
        assert_eq!((l.by.as_str(), l.entropy.as_str()), ("moderator", ""), "{}", p.id());
    }
    let rec: EntryRecord = toml_of(&first.join("entry.toml"));
    assert!(
        rec.note.contains("orders entered by the moderator for: france"),
        "{}",
        rec.note
    );
    assert!(
        rec.note.contains("the moderator could know these dice before the lock"),
        "{}",
        rec.note
    );
    let (code, out) = verify(&copies[0]);
    assert_eq!(code, 0, "{out}");
}

/// Issue 38: `submit` with other orders, other ENTROPY lines and other
/// times gives the same die for every shared purpose; the ENTROPY line is
/// not kept, and the lock in the report says the moderator entered the
/// orders.
#[test]
fn submit_grinding_on_copies_gives_the_same_die_for_every_shared_purpose() {
    let (t, g) = new_game();
    let mut entries = Vec::new();
    for (i, body) in ["ENTROPY grind-a\nNO ORDERS\n", "ENTROPY grind-b\nPASS\n", "NO ORDERS\n"]
        .iter()
        .enumerate()
    {
        let x = t.path().join(format!("s{i}"));
        copy_tree(&g, &x);
        let f = t.path().join(format!("orders{i}.txt"));
        fs::write(&f, body).unwrap();
        let out = bin()
            .args(["submit", "--power", "france", "--game"])
            .arg(&x)
            .arg(&f)
            .env("EMPEREUR_NOW", format!("2026-01-0{}T10:00:00Z", i + 1))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains("these orders add no entropy"), "{text}");
        assert_eq!(
            text.contains("the ENTROPY line was not kept"),
            body.starts_with("ENTROPY"),
            "{text}"
        );
        bin().args(["resolve", "--game"]).arg(&x).assert().success();
        queue_mail(&x);
        let lock = outbox_mails(&x, ": report of 1805");
        assert!(
            lock.iter()
                .any(|m| m.replace("=\r\n", "").contains("france: ENTERED BY THE MODERATOR")),
            "{lock:?}"
        );
        entries.push(x);
    }
    let mut compared = 0;
    for x in &entries[1..] {
        let shared = shared_rolls(&only_entry(&entries[0]), &only_entry(x));
        compared += shared.len();
        for (purpose, a, b) in shared {
            assert_eq!(a, b, "roll '{purpose}' differs between copies: {a} and {b}");
        }
    }
    assert!(compared > 0, "the copies share no purpose");
    let e: EntropyFile = toml_of(&only_entry(&entries[0]).join("entropy.toml"));
    assert!(e.entropy.is_empty(), "{:?}", e.entropy);
    let (code, out) = verify(&entries[0]);
    assert_eq!(code, 0, "{out}");
}

/// Issue 38: the game's seeds are a chain committed at creation, so two
/// resolutions of copies open the next phase under the same commitment,
/// and a seed drawn otherwise is reported.
#[test]
fn two_resolutions_of_copies_open_the_same_next_commitment() {
    let (t, g) = new_game();
    let dir = GameDir::new(&g);
    let genesis = history::genesis(&dir).unwrap().expect("a genesis entry");
    let (grec, gbytes) = history::read_entry(&dir, &genesis).unwrap();
    assert_eq!(grec.kind, "genesis");
    assert_eq!(grec.next_commitment, Some(open_commitment(&g)));
    assert_eq!(
        phase::record(&dir).unwrap().unwrap().chain,
        history::sha256_hex(&gbytes)
    );
    let x = t.path().join("x");
    copy_tree(&g, &x);
    bin().args(["resolve", "--game"]).arg(&g).assert().success();
    bin().args(["resolve", "--game"]).arg(&x).assert().success();
    assert_eq!(open_commitment(&g), open_commitment(&x));
    // The revealed seed hashes to the anchor of the genesis entry.
    let seed = dice::parse_hex32(&fs::read_to_string(only_entry(&g).join("seed")).unwrap()).unwrap();
    assert_eq!(
        Some(dice::to_hex(&dice::chain_link("tamper", &seed))),
        grec.chain_anchor
    );
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    // A next seed drawn otherwise (here: the chain's secret set aside, so
    // the resolution draws one as an old game did) is caught once revealed.
    let y = t.path().join("y");
    copy_tree(&x, &y);
    fs::remove_file(y.join("phase/seed-chain")).unwrap();
    bin().args(["resolve", "--game"]).arg(&y).assert().success();
    bin().args(["resolve", "--game"]).arg(&y).assert().success();
    let (code, out) = verify(&y);
    assert_eq!(code, 1, "{out}");
    let opened = history::list(&GameDir::new(&y)).unwrap()[&2].clone();
    assert!(out.contains(&format!("{opened}: the seed of the commitment")), "{out}");
    assert!(
        out.contains("is not link 3 of the seed chain of the genesis entry (a redrawn seed)"),
        "{out}"
    );
}

/// Issue 38: typed dice only in a phase announced with physical dice
/// before it opened (refused with the reason, exit 1, otherwise); the
/// announcement is mailed and journalled.
#[test]
fn unannounced_manual_dice_are_refused() {
    let (_t, g) = new_game();
    let out = bin()
        .args(["resolve", "--manual-dice", "3,4,5", "--game"])
        .arg(&g)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "--manual-dice is refused: phase 1805-fall-turn-start was not announced with physical dice before it opened"
        ),
        "{text}"
    );
    assert!(history::list(&GameDir::new(&g)).unwrap().is_empty());
    // The open phase cannot be announced: its committed dice are fixed.
    let out = bin()
        .args(["physical-dice", "--phase", "1805-fall-turn-start", "--game"])
        .arg(&g)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("physical dice are announced before a phase opens"));
    // Announced for the next phase: mailed, then accepted there.
    announce_physical_next(&g);
    let next = engine_next(GameDir::new(&g).load_state().unwrap().phase);
    let mails = outbox_mails(&g, "will be resolved with physical dice");
    // One announcement, a copy to every player and the moderator.
    let config = GameDir::new(&g).load_config().unwrap();
    assert_eq!(
        mails.len(),
        config.players.len() + 1,
        "one announcement, to every player"
    );
    assert!(
        fs::read_to_string(g.join("journal.log"))
            .unwrap()
            .contains(&format!("physical-dice {next}"))
    );
    resolve(&g, None);
    let rec = phase::record(&GameDir::new(&g)).unwrap().unwrap();
    assert_eq!((rec.phase, rec.dice.as_deref()), (next, Some("manual")));
    // Its opening mail says so, under its commitment.
    let dir = GameDir::new(&g);
    let templates = empereur::report::Templates::load(&dir.root).unwrap();
    let now = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
        .unwrap()
        .to_utc();
    empereur::ops::mailing::mail_pending(&dir, &templates, now).unwrap();
    let openings = outbox_mails(&g, &format!("phase {next} is open"));
    assert!(!openings.is_empty(), "no opening of {next}");
    for m in &openings {
        let flat = m.replace("=\r\n", "").replace("\r\n", "\n");
        assert!(flat.contains("Dice: PHYSICAL."), "{flat}");
    }
    let name = resolve(&g, Some("3,0,6"));
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("note: {name}: roll")), "{out}");
}

/// Issue 38: `verify` checks `phase/commitment` whole: its `chain` names
/// the entry that opened the phase.
#[test]
fn an_edited_chain_field_of_the_phase_commitment_is_reported() {
    let (_t, g) = new_game();
    let name = resolve(&g, None);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    let path = g.join("phase/commitment");
    let rec = phase::record(&GameDir::new(&g)).unwrap().unwrap();
    edit(&path, |t| t.replace(&rec.chain, history::ZERO));
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "phase/commitment: its chain is 000000000000 but the phase was opened by entry {name}, which hashes to"
        )),
        "{out}"
    );
}

/// Issue 38: entropy no mail could have produced (spaces around the
/// value) is refused, even resealed.
#[test]
fn entropy_with_spaces_around_it_is_reported() {
    let (_t, g) = new_game();
    submit(
        &g,
        PowerId::France,
        "mail:ann@example.org",
        "2026-01-01T10:00:00Z",
        Some(" padded "),
    );
    let name = resolve(&g, None);
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "{name}: orders/france.toml: its entropy ' padded ' is empty or has spaces around it, which no mail could have produced"
        )),
        "{out}"
    );
}

/// Each report reveals the seed of the phase it resolved: a seed that is
/// not the one the history committed to for that phase is named, even
/// when every other anchor of the mail is the history's.
#[test]
fn a_revealed_seed_the_history_never_committed_to_is_caught_by_a_players_mailbox() {
    let (t, g) = new_game();
    for _ in 0..2 {
        resolve(&g, None);
    }
    let mails = t.path().join("russia-mail");
    mailbox_copy(&g, &mails);
    let (code, out) = verify_mails(&g, &mails);
    assert_eq!(code, 0, "{out}");
    // A report whose revealed seed differs by one hex digit: its chain,
    // commitment and entry anchors are still the history's.
    let (file, phase, at) = fs::read_dir(&mails)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find_map(|p| {
            let text = fs::read_to_string(&p).unwrap();
            let kw = text.find(history::SEED)?;
            let phase = text[kw..].split_whitespace().nth(2)?.to_string();
            let next = kw + text[kw..].find('\n')? + 1;
            let at = next + text[next..].len() - text[next..].trim_start().len();
            Some((p, phase, at))
        })
        .expect("a report revealing its seed");
    let mut text = fs::read_to_string(&file).unwrap();
    let other = if &text[at..at + 1] == "0" { "1" } else { "0" };
    text.replace_range(at..at + 1, other);
    fs::write(&file, text).unwrap();
    let (code, out) = verify_mails(&g, &mails);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "the seed it revealed for {phase} is not the seed of any resolution of {phase} in the history"
        )),
        "{out}"
    );
    assert!(!out.contains("rewritten") && !out.contains("truncated"), "{out}");
}
