#![allow(clippy::disallowed_methods)] // a benchmark writes files and reads the clock
//! Verify a synthetic ten-year history (41 seasons, every phase, 20,000
//! rolls) and compare with `sha256sum` over the same bytes.
//!
//! `cargo bench --bench verify` (release build). Target: verify within 3×
//! of hashing the bytes.

mod common;
use empereur::dice::{self, Committed, Dice, Entropy};
use empereur::ids::{PhaseId, PowerId, Season, Step, Turn};
use empereur::ops::verify::{VerifyOptions, verify_game};
use empereur::rules::Outcome;
use empereur::state::State;
use empereur::store::history::{self, DiceLog, Draft, EntropyFile, LockFile, LockedPower, OutcomesFile};
use empereur::store::submission::Submission;
use empereur::store::{self, GameDir, phase};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const ROLLS: usize = 20_000;

/// Every phase from 1805 fall to 1815 fall: 41 seasons.
fn phases() -> Vec<PhaseId> {
    let mut out = Vec::new();
    let mut turn = Turn {
        year: 1805,
        season: Season::Fall,
    };
    for _ in 0..41 {
        if turn.season == Season::Winter {
            out.push(PhaseId {
                turn,
                step: Step::Winter,
            });
        } else {
            out.push(PhaseId {
                turn,
                step: Step::TurnStart,
            });
            for p in PowerId::ALL {
                out.push(PhaseId {
                    turn,
                    step: Step::PlayerTurn(p),
                });
            }
            out.push(PhaseId {
                turn,
                step: Step::Build,
            });
        }
        turn = turn.next();
    }
    out
}

fn seed_of(i: usize) -> dice::Seed {
    Sha256::digest(format!("bench seed {i}").as_bytes()).into()
}

fn build(root: &Path) -> (GameDir, usize) {
    let dir = GameDir::new(root);
    dir.create_layout().unwrap();
    let scenario = store::load_scenario("1805").unwrap();
    let powers: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut state = State::initial(&scenario, "bench", &powers, BTreeSet::new());
    let phases = phases();
    let n = phases.len();
    state.phase = phases[0];
    for (i, ph) in phases.iter().enumerate() {
        let before = state.to_toml();
        let seed = seed_of(i);
        // Every power mailed orders; some typed an ENTROPY line too.
        let mut entropy = Entropy::new();
        let mut subs = Vec::new();
        let mut lock = LockFile {
            game: "bench".into(),
            phase: *ph,
            commitment: dice::commitment("bench", &ph.to_string(), &seed),
            dice: "committed".into(),
            manual_dice: None,
            redo_of: None,
            beacon: None,
            beacon_round: None,
            beacon_signature: None,
            powers: Default::default(),
        };
        for (k, p) in PowerId::ALL.iter().enumerate() {
            let typed = (k <= i % 7).then(|| format!("{} says {i}", p.id()));
            let sub = toml::to_string(&Submission {
                power: *p,
                phase: *ph,
                by: format!("mail:{}@example.org", p.id()),
                received: "2026-01-01T00:00:00Z".into(),
                entropy: typed.clone(),
                passed: false,
                orders: vec![],
            })
            .unwrap();
            let receipt = history::sha256_hex(sub.as_bytes());
            let e = dice::power_entropy(&receipt, typed.as_deref());
            lock.powers.insert(
                *p,
                LockedPower {
                    by: "player".into(),
                    receipt,
                    entropy: e.clone(),
                },
            );
            entropy.insert(*p, e);
            subs.push((*p, sub));
        }
        let mut d = Committed::new(&seed, &entropy);
        let count = (i + 1) * ROLLS / n - i * ROLLS / n;
        let mut outcomes = Vec::new();
        for k in 0..count {
            let purpose = format!("land-battle/p{}/{}/round-{}/attacker", i, k / 6, k % 6);
            let r = d.roll(&purpose, if k % 5 == 0 { 6 } else { 10 }).unwrap();
            outcomes.push(Outcome::new("4.2", empereur::rules::Kind::Battle, format!("roll {r}")).die(&purpose, r));
        }
        state.phase = *phases.get(i + 1).unwrap_or(ph);
        state.power_mut(PowerId::France).gold += 1;
        let after = state.to_toml();
        let mut draft = Draft::new("resolve", "bench", *ph);
        draft.commitment = Some(dice::commitment("bench", &ph.to_string(), &seed));
        draft.next_phase = Some(state.phase);
        draft.next_commitment = Some(dice::commitment("bench", &state.phase.to_string(), &seed_of(i + 1)));
        draft.file("state-before.toml", before);
        draft.file("lock.toml", toml::to_string(&lock).unwrap());
        for (p, sub) in subs {
            draft.file(&format!("orders/{}.toml", p.id()), sub);
        }
        draft.file("seed", format!("{}\n", dice::to_hex(&seed)));
        draft.file("entropy.toml", toml::to_string(&EntropyFile { entropy }).unwrap());
        let rolls = d.log().to_vec();
        draft.file("dice.toml", toml::to_string(&DiceLog { rolls: rolls.clone() }).unwrap());
        draft.file("report.txt", history::render_report("bench", *ph, &outcomes, &rolls));
        draft.file("outcomes.toml", toml::to_string(&OutcomesFile { outcomes }).unwrap());
        draft.file("state-after.toml", after);
        history::append(&dir, &draft).unwrap();
    }
    dir.save_state(&state).unwrap();
    phase::open_with_seed(&dir, &state, &seed_of(n), None).unwrap();
    (dir, n)
}

fn files(root: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(root).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn best<F: FnMut()>(runs: usize, mut f: F) -> Duration {
    (0..common::size(runs, 1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// A real game: created as `empereur new` does, then `phases` phases
/// autoplayed with the rules engine (generated orders, committed dice).
fn played(root: &Path, phases: u32) -> GameDir {
    let players = Path::new(env!("CARGO_MANIFEST_DIR")).join("games/demo/players.toml");
    empereur::ops::new::create(&empereur::ops::new::NewOptions {
        dir: root.to_path_buf(),
        scenario: "1805".into(),
        players,
        options: vec![],
        id: Some("replay".into()),
        house_seating: true,
    })
    .unwrap();
    let dir = GameDir::new(root);
    empereur::ops::autoplay::autoplay(&dir, phases, 7, Some("2026-01-01T00:00:00Z")).unwrap();
    dir
}

/// verify --replay of a real autoplayed game against `sha256sum` of its
/// history: replay carries each replayed state into the next phase.
fn replay_bench() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = played(&tmp.path().join("g"), common::size(120, 3));
    let mut all = Vec::new();
    files(&dir.history(), &mut all);
    let bytes: u64 = all.iter().map(|p| std::fs::metadata(p).unwrap().len()).sum();
    let replay = VerifyOptions {
        replay: true,
        entries: vec![],
    };
    let r = verify_game(&dir, &replay).unwrap();
    assert!(r.ok(), "{:?}", &r.problems[..r.problems.len().min(5)]);
    let plain = best(3, || {
        assert!(verify_game(&dir, &VerifyOptions::default()).unwrap().ok())
    });
    let v = best(3, || assert!(verify_game(&dir, &replay).unwrap().ok()));
    let s = best(3, || {
        let out = Command::new("sha256sum").args(&all).output().expect("sha256sum runs");
        assert!(out.status.success());
    });
    println!(
        "verify --replay: {} entries ({} replayed), {} files, {:.1} MB: {:.1} ms; verify without replay: {:.1} ms; sha256sum over the same files: {:.1} ms; ratios {:.2} (replay; target <= 3) and {:.2} (verify)",
        r.entries,
        r.replayed,
        all.len(),
        bytes as f64 / 1e6,
        v.as_secs_f64() * 1e3,
        plain.as_secs_f64() * 1e3,
        s.as_secs_f64() * 1e3,
        v.as_secs_f64() / s.as_secs_f64(),
        plain.as_secs_f64() / s.as_secs_f64()
    );
}

fn main() {
    replay_bench();
    let tmp = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let (dir, entries) = build(&tmp.path().join("g"));
    eprintln!("built {entries} entries in {:.1?}", t.elapsed());
    let mut all = Vec::new();
    files(&dir.history(), &mut all);
    all.push(dir.state());
    all.push(phase::commitment_path(&dir));
    let bytes: u64 = all.iter().map(|p| std::fs::metadata(p).unwrap().len()).sum();

    let opts = VerifyOptions::default();
    let r = verify_game(&dir, &opts).unwrap();
    assert!(r.ok(), "{:?}", &r.problems[..r.problems.len().min(5)]);
    assert_eq!(r.committed_rolls, ROLLS);
    let v = best(5, || {
        let r = verify_game(&dir, &opts).unwrap();
        assert!(r.ok());
    });
    let s = best(5, || {
        let out = Command::new("sha256sum").args(&all).output().expect("sha256sum runs");
        assert!(out.status.success());
    });
    println!(
        "verify: {entries} entries, {} rolls, {} files, {:.1} MB: {:.1} ms; sha256sum over the same files: {:.1} ms; ratio {:.2}",
        r.committed_rolls,
        all.len(),
        bytes as f64 / 1e6,
        v.as_secs_f64() * 1e3,
        s.as_secs_f64() * 1e3,
        v.as_secs_f64() / s.as_secs_f64()
    );
}
