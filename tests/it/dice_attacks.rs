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
use std::path::Path;

fn submit(g: &Path, power: PowerId, by: &str, received: &str, entropy: Option<&str>) -> String {
    let dir = GameDir::new(g);
    let state = dir.load_state().unwrap();
    let sub = Submission {
        power,
        phase: state.phase,
        by: by.into(),
        received: received.into(),
        entropy: entropy.map(str::to_string),
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
    let mut entropy = Entropy::new();
    entropy.insert(PowerId::Russia, dice::power_entropy(&receipt, Some("try 1")));
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
    let name = resolve(&g, Some("1,2,3"));
    let rec = record(&g, &name);
    assert!(rec.note.contains("2 preview(s)"), "{}", rec.note);
    assert!(rec.note.contains("manual dice"), "{}", rec.note);
    assert!(
        rec.note.contains("orders entered by the moderator for: russia"),
        "{}",
        rec.note
    );
    assert!(!phase::previews_path(&dir).exists());
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
    assert!(history::list(&GameDir::new(&g)).unwrap().is_empty());
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
fn outbox_mails(g: &Path, subject: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir(g.join("mail/outbox")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml") {
            let t = fs::read_to_string(&p).unwrap();
            if t.contains(subject) {
                out.push(t);
            }
        }
    }
    out
}

#[test]
fn orders_the_moderator_enters_are_marked_in_the_lock_mail_and_the_entry() {
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
    let locks = outbox_mails(&g, "are locked");
    assert_eq!(locks.len(), 1, "one lock mail, to every player");
    let lock = locks[0].replace("=\r\n", "").replace("\r\n", "\n");
    assert!(lock.contains("russia: ENTERED BY THE MODERATOR"), "{lock}");
    assert!(lock.contains(&r_ru[..40]) && lock.contains(&r_fr[..40]), "{lock}");
    assert!(lock.contains("france: sent by the player"), "{lock}");
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
fn mailbox_copy(g: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(g.join("mail/outbox")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml") {
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
        out.contains("the mailbox of Russia holds 4 mail(s) of the game"),
        "{out}"
    );

    truncate_and_reseal(&g, 2);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "the files alone cannot show it: {out}");
    let (code, out) = verify_mails(&g, &mails);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("it was sent when the history had 3 entries, but the history has 2: it was truncated"),
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
