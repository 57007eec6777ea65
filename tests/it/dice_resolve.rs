#![allow(clippy::disallowed_methods)] // tests read and write game files
//! `empereur resolve`: commitments, history entries, refusals, manual
//! dice, and recovery after a crash at either side of the commit point.

use crate::dice_common::*;
use empereur::dice;
use empereur::store::history;
use empereur::store::{GameDir, phase};
use std::fs;
use std::path::Path;

fn head(g: &Path) -> history::Head {
    history::read_head(&GameDir::new(g)).unwrap()
}

#[test]
fn a_new_game_opens_with_a_commitment_to_a_private_seed() {
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    let rec = phase::record(&dir).unwrap().unwrap();
    let seed = phase::read_seed(&dir).unwrap();
    assert_eq!(rec.game, "tamper");
    assert_eq!(rec.phase.to_string(), "1805-fall-turn-start");
    assert_eq!(
        rec.commitment,
        dice::commitment("tamper", "1805-fall-turn-start", &seed)
    );
    // docs/dice.md 1a: the genesis entry opened it, from the seed chain.
    let genesis = history::genesis(&dir).unwrap().unwrap();
    let (grec, bytes) = history::read_entry(&dir, &genesis).unwrap();
    assert_eq!(rec.chain, history::sha256_hex(&bytes));
    assert_eq!(grec.next_commitment.as_deref(), Some(rec.commitment.as_str()));
    assert_eq!(
        grec.chain_anchor,
        Some(dice::to_hex(&dice::chain_link("tamper", &seed)))
    );
    assert_eq!(phase::commitment(&dir).unwrap(), Some(rec.commitment));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(phase::seed_path(&dir)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn resolve_writes_the_entry_and_opens_the_next_phase() {
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    let before = fs::read(g.join("state.toml")).unwrap();
    let c0 = phase::commitment(&dir).unwrap().unwrap();
    fs::write(g.join("phase/orders/leftover.toml"), "x").unwrap();
    let out = bin().args(["resolve", "--game"]).arg(&g).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("resolved 1805-fall-turn-start"), "{text}");
    let e = entry(&g, "0001-1805-fall-turn-start");
    for f in [
        "entry.toml",
        "state-before.toml",
        "seed",
        "entropy.toml",
        "dice.toml",
        "outcomes.toml",
        "state-after.toml",
        "report.txt",
    ] {
        assert!(e.join(f).is_file(), "{f}");
    }
    assert_eq!(fs::read(e.join("state-before.toml")).unwrap(), before);
    let (rec, _) = history::read_entry(&dir, "0001-1805-fall-turn-start").unwrap();
    assert_eq!(rec.commitment.as_deref(), Some(c0.as_str()));
    let c1 = phase::commitment(&dir).unwrap().unwrap();
    assert_ne!(c0, c1);
    assert_eq!(rec.next_commitment, Some(c1));
    assert!(!g.join("phase/orders/leftover.toml").exists(), "orders are cleared");
    assert!(!phase::next_seed_path(&dir).exists());
    assert_eq!(head(&g).entries, 1);
    assert!(
        fs::read_to_string(g.join("journal.log"))
            .unwrap()
            .contains("resolve 1805-fall-turn-start")
    );
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn resolve_refuses_another_phase_and_a_finished_game() {
    let (_t, g) = new_game();
    let out = bin()
        .args(["resolve", "--phase", "1806-winter", "--game"])
        .arg(&g)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "not resolved: the open phase is 1805-fall-turn-start, not 1806-winter"
    );
    let state = g.join("state.toml");
    let text = fs::read_to_string(&state).unwrap();
    fs::write(
        &state,
        text.replacen("format = 1\n", "format = 1\nover = \"france\"\n", 1),
    )
    .unwrap();
    let out = bin().args(["resolve", "--game"]).arg(&g).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("the game is over (france)"));
    assert_eq!(head(&g).entries, 0);
}

#[test]
fn leftover_manual_dice_resolve_nothing() {
    let (_t, g) = new_game();
    // Far more dice than the Turn Start's chit draw asks for: the rest are
    // left over, which is an error that resolves nothing.
    let many = vec!["4"; 40].join(",");
    // Typed dice only in a phase announced before it opened (docs/dice.md
    // 4): the chit draw decides which power phase comes next, so all are.
    for p in ["france", "britain", "russia", "austria", "prussia", "spain", "ottoman"] {
        bin()
            .args(["physical-dice", "--phase", &format!("1805-fall-{p}"), "--game"])
            .arg(&g)
            .assert()
            .success();
    }
    bin().args(["resolve", "--game"]).arg(&g).assert().success();
    let out = bin()
        .args(["resolve", "--manual-dice", &many, "--game"])
        .arg(&g)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--manual-dice: ") && err.contains("die value(s) were not used: 4, 4"),
        "{err}"
    );
    assert_eq!(head(&g).entries, 1);
    assert!(!phase::next_seed_path(&GameDir::new(&g)).exists());
}

#[test]
fn a_crash_before_the_commit_point_leaves_the_old_phase() {
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    resolve(&g, None);
    let state = fs::read(g.join("state.toml")).unwrap();
    let c = phase::commitment(&dir).unwrap().unwrap();
    // What a crash between staging and the head write leaves behind.
    let open = dir.load_state().unwrap();
    phase::stage_next(&dir, "tamper", open.phase, None).unwrap();
    fs::create_dir_all(g.join("history/.tmp-0002-1806-winter")).unwrap();
    fs::create_dir_all(g.join("history/0002-1806-winter")).unwrap();
    fs::write(g.join("history/0002-1806-winter/entry.toml"), "half").unwrap();
    // The old phase is intact; verify says what is pending.
    assert_eq!(fs::read(g.join("state.toml")).unwrap(), state);
    assert_eq!(phase::commitment(&dir).unwrap().unwrap(), c);
    let (code, out) = verify(&g);
    assert_eq!(code, 1);
    assert!(
        out.contains("0002-1806-winter: this entry is not in the chain"),
        "{out}"
    );
    // Re-running resolves the open phase under the same commitment.
    let name = resolve(&g, None);
    assert_eq!(name, "0002-1806-winter");
    let (rec, _) = history::read_entry(&dir, &name).unwrap();
    assert_eq!(rec.commitment, Some(c));
    assert!(!g.join("history/.tmp-0002-1806-winter").exists());
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_crash_after_the_commit_point_is_finished_not_repeated() {
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    resolve(&g, None);
    // Snapshot the open phase, resolve, then put the snapshot back and the
    // new seed in next-seed: exactly what a crash right after the head
    // write leaves.
    let old_state = fs::read(g.join("state.toml")).unwrap();
    let old_seed = fs::read(phase::seed_path(&dir)).unwrap();
    let old_commit = fs::read(phase::commitment_path(&dir)).unwrap();
    let name = resolve(&g, None);
    let new_rec = phase::record(&dir).unwrap().unwrap();
    let new_seed = fs::read_to_string(phase::seed_path(&dir)).unwrap();
    fs::write(
        phase::next_seed_path(&dir),
        format!(
            "phase = \"{}\"\nseed = \"{}\"\ncommitment = \"{}\"\n",
            new_rec.phase,
            new_seed.trim(),
            new_rec.commitment
        ),
    )
    .unwrap();
    let new_state = fs::read(g.join("state.toml")).unwrap();
    fs::write(g.join("state.toml"), &old_state).unwrap();
    fs::write(phase::seed_path(&dir), old_seed).unwrap();
    fs::write(phase::commitment_path(&dir), old_commit).unwrap();

    let out = bin().args(["resolve", "--game"]).arg(&g).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains(&format!("-> history/{name}")), "{text}");
    assert_eq!(head(&g).entries, 2, "the phase is not resolved twice");
    assert_eq!(fs::read(g.join("state.toml")).unwrap(), new_state);
    assert_eq!(phase::record(&dir).unwrap().unwrap().commitment, new_rec.commitment);
    assert!(!phase::next_seed_path(&dir).exists());
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_rollback_is_an_entry_in_the_chain() {
    let (_t, g, names) = played();
    let dir = GameDir::new(&g);
    let back =
        empereur::state::State::from_toml(&fs::read_to_string(entry(&g, &names[2]).join("state-before.toml")).unwrap())
            .unwrap();
    let info = {
        let _lock = dir.lock().unwrap();
        empereur::ops::resolve::record_state_change(
            &dir,
            "moderator",
            &format!("rolled back to before {}", names[2]),
            &back,
            Default::default(),
        )
        .unwrap()
    };
    assert_eq!(info.name, "0006-1806-fall-turn-start");
    assert_eq!(dir.load_state().unwrap(), back);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    // Play on from the restored phase: a new seed, so new rolls are checked.
    let again = resolve(&g, None);
    assert_eq!(again, "0007-1806-winter");
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.ends_with("ok: 7 entries, 12 committed roll(s), 3 manual roll(s)\n"),
        "{out}"
    );
}
