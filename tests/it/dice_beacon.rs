#![allow(clippy::disallowed_methods)] // tests read and write game files, serve HTTP on loopback
//! The public beacon (docs/dice.md 2a): with `[dice] beacon =
//! "drand-quicknet"` the commitment names the first drand round after the
//! deadline and the key folds in its signature. The round is a recorded
//! quicknet round served from 127.0.0.1 (never the network).

use crate::dice_common::*;
use chrono::{DateTime, Duration, Utc};
use empereur::dice::beacon::QUICKNET;
use empereur::dice::{self, BeaconRound, BeaconValue, Committed, Dice, Entropy};
use empereur::ids::PowerId;
use empereur::ops::resolve::{ResolveOptions, Resolved, resolve_game_with};
use empereur::rules::{EngineError, Outcome, PhaseOrders, Resolution};
use empereur::scenario::Scenario;
use empereur::state::State;
use empereur::store::history::{self, DiceLog, EntropyFile, EntryRecord};
use empereur::store::submission::{self, Submission};
use empereur::store::{GameDir, phase};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command as Std;
use std::sync::{Arc, Mutex};

/// Quicknet round 123 as the network published it (the recording the
/// `drand-verify` crate's own quicknet test checks).
const ROUND: u64 = 123;
const SIG: &str = "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92";

/// A drand relay on loopback serving round 123 only (404 for anything
/// else), for at most `n` requests; returns its base URL and the paths
/// asked for.
fn relay(n: usize) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(n) {
            let Ok(mut s) = stream else { continue };
            let mut reader = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap() == 0 || h == "\r\n" {
                    break;
                }
            }
            let path = line.split_whitespace().nth(1).unwrap_or_default().to_string();
            log.lock().unwrap().push(path.clone());
            let (status, body) = if path == format!("/{}/public/{ROUND}", QUICKNET.chain_hash) {
                ("200 OK", format!("{{\"round\":{ROUND},\"signature\":\"{SIG}\"}}"))
            } else {
                ("404 Not Found", "{\"error\":\"no such round\"}".to_string())
            };
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, asked)
}

fn with_beacon(g: &Path, url: &str) {
    let path = g.join("game.toml");
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "\n[dice]\nbeacon = \"drand-quicknet\"\nbeacon_url = \"{url}\"\n"
    ));
    fs::write(&path, text).unwrap();
}

/// Twenty d10 per phase, so that two keys giving the same rolls by chance
/// is out of the question.
fn many_rolls(_s: &Scenario, st: &State, o: &PhaseOrders, dice: &mut dyn Dice) -> Result<Resolution, EngineError> {
    let mut r = engine(_s, st, o, dice)?;
    for i in 0..20 {
        let purpose = format!("test/{}/{i}", st.phase);
        let v = dice.roll(&purpose, 10)?;
        r.outcomes
            .push(Outcome::new("4.2", empereur::rules::Kind::Event, format!("roll {i}: {v}")).die(&purpose, v));
    }
    Ok(r)
}

fn at(t: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(t, 0).unwrap()
}

fn resolve_at(g: &Path, now: DateTime<Utc>) -> Resolved {
    let opts = ResolveOptions {
        now: Some(now.format("%Y-%m-%dT%H:%M:%SZ").to_string()),
        ..ResolveOptions::default()
    };
    resolve_game_with(&GameDir::new(g), &opts, many_rolls).unwrap()
}

/// The time at which resolving the open phase makes the next phase's
/// commitment name round 123 (its deadline falls just after round 122).
fn time_for_round_123(g: &Path) -> DateTime<Utc> {
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("g");
    Std::new("cp").arg("-r").arg(g).arg(&copy).status().unwrap();
    let guess = at(QUICKNET.round_time(ROUND));
    let Resolved::Done(s) = resolve_at(&copy, guess) else {
        panic!("the scratch copy did not resolve")
    };
    let config = GameDir::new(&copy).load_config().unwrap();
    let r = empereur::ops::beacon::round_for(&config, s.next, guess)
        .unwrap()
        .unwrap()
        .round;
    guess - Duration::seconds(QUICKNET.period * (r as i64 - ROUND as i64))
}

/// Every mail (`.eml`) under `root` (outbox, sent, the file transport's
/// directory) whose text contains `needle`.
fn mails_with(root: &Path, needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(root) else { return out };
    for e in rd {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(mails_with(&p, needle));
        } else if p.extension().is_some_and(|x| x == "eml")
            && let Ok(t) = fs::read_to_string(&p)
            && t.contains(needle)
        {
            out.push(t);
        }
    }
    out
}

fn record(g: &Path, name: &str) -> EntryRecord {
    history::read_entry(&GameDir::new(g), name).unwrap().0
}

fn python_verifier(g: &Path) -> (i32, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dice_verifier.py");
    let out = Std::new("python3").arg(script).arg(g).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn the_commitment_names_the_round_and_the_key_folds_in_its_signature() {
    let (_t, g) = new_game();
    let (url, asked) = relay(8);
    with_beacon(&g, &url);
    let t0 = time_for_round_123(&g);
    let Resolved::Done(first) = resolve_at(&g, t0) else {
        panic!("phase 1 did not resolve")
    };
    // The phase just opened commits to its seed and to round 123.
    let dir = GameDir::new(&g);
    let rec = phase::record(&dir).unwrap().unwrap();
    let b = BeaconRound {
        network: "drand-quicknet".into(),
        round: ROUND,
    };
    assert_eq!(rec.beacon(), Some(b.clone()));
    let seed = phase::read_seed(&dir).unwrap();
    let ph = rec.phase.to_string();
    assert_eq!(rec.commitment, dice::commitment_with(&rec.game, &ph, &seed, Some(&b)));
    assert_ne!(rec.commitment, dice::commitment(&rec.game, &ph, &seed));
    assert_eq!(first.commitment, rec.commitment);

    // Before the round is published the phase waits: nothing is written
    // and the relay is not even asked.
    let before = history::read_head(&dir).unwrap().entries;
    match resolve_at(&g, at(QUICKNET.round_time(ROUND) - 30)) {
        Resolved::Refused(why) => assert!(why.contains("round 123"), "{why}"),
        Resolved::Done(s) => panic!("resolved {} before its beacon round", s.entry),
    }
    assert_eq!(history::read_head(&dir).unwrap().entries, before);
    assert!(asked.lock().unwrap().is_empty());

    // A moderator who reads every file of the open phase (nobody mailed:
    // no entropy) computes these dice from the seed alone …
    let predicted = Committed::new(&seed, &Entropy::new());

    let Resolved::Done(s) = resolve_at(&g, at(QUICKNET.round_time(ROUND) + 2)) else {
        panic!("not resolved once the round is out")
    };
    assert_eq!(
        asked.lock().unwrap().as_slice(),
        [format!("/{}/public/{ROUND}", QUICKNET.chain_hash)]
    );
    let e = record(&g, &s.entry);
    assert_eq!(e.beacon.as_deref(), Some("drand-quicknet"));
    assert_eq!(e.beacon_round, Some(ROUND));
    assert_eq!(e.beacon_signature.as_deref(), Some(SIG));
    let root = entry(&g, &s.entry);
    let lock: history::LockFile = toml::from_str(&fs::read_to_string(root.join("lock.toml")).unwrap()).unwrap();
    assert_eq!(lock.beacon_signature.as_deref(), Some(SIG));
    let entropy: EntropyFile = toml::from_str(&fs::read_to_string(root.join("entropy.toml")).unwrap()).unwrap();
    let value = BeaconValue {
        network: "drand-quicknet".into(),
        round: ROUND,
        signature: hex::decode(SIG).unwrap(),
    };
    let keyed = Committed::from_key(dice::derive_key_with(&seed, &entropy.entropy, Some(&value)));
    let log: DiceLog = toml::from_str(&fs::read_to_string(root.join("dice.toml")).unwrap()).unwrap();
    assert_eq!(log.rolls.len(), 23);
    // … but the rolls are those of the key with the round's signature.
    for r in &log.rolls {
        assert_eq!(r.result, keyed.peek(&r.purpose, r.sides), "{}", r.purpose);
    }
    assert!(
        log.rolls
            .iter()
            .any(|r| r.result != predicted.peek(&r.purpose, r.sides)),
        "the moderator's prediction from phase/seed held for every roll"
    );

    // A phase with a beacon is not one whose dice the moderator foresaw.
    let r = empereur::ops::verify::verify_game(&dir, &Default::default()).unwrap();
    assert!(!r.foreseeable.contains(&s.entry), "{:?}", r.foreseeable);
    // Both verifiers agree; the binary checks the BLS signature offline.
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 beacon signature(s) checked"), "{out}");
    let (code, out) = python_verifier(&g);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("NOTE"), "{out}");
}

#[test]
fn a_forged_beacon_signature_is_caught_by_both_verifiers() {
    let (_t, g) = new_game();
    let (url, _) = relay(4);
    with_beacon(&g, &url);
    resolve_at(&g, time_for_round_123(&g));
    let Resolved::Done(s) = resolve_at(&g, at(QUICKNET.round_time(ROUND) + 2)) else {
        panic!("not resolved")
    };
    // Another signature of the right length, resealed everywhere.
    let forged = format!("a{}", &SIG[1..]);
    for f in ["entry.toml", "lock.toml"] {
        edit(&entry(&g, &s.entry).join(f), |t| t.replace(SIG, &forged));
    }
    reseal(&g, &s.entry);
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("does not verify against the network's public key") || out.contains("is malformed"),
        "{out}"
    );
    // Python cannot check BLS here, but the key folds the signature in:
    // the recorded rolls no longer follow.
    let (code, out) = python_verifier(&g);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("BAD"), "{out}");
}

#[test]
fn run_waits_for_the_round_then_resolves_and_reports_the_lock_with_it() {
    let (_t, g) = new_game();
    let (url, asked) = relay(4);
    with_beacon(&g, &url);
    let t0 = time_for_round_123(&g);
    resolve_at(&g, t0);
    let dir = GameDir::new(&g);
    assert_eq!(phase::record(&dir).unwrap().unwrap().beacon_round, Some(ROUND));
    // Everyone is in early.
    let state = dir.load_state().unwrap();
    let received = (t0 + Duration::minutes(1)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    for p in PowerId::ALL {
        let sub = Submission {
            power: p,
            phase: state.phase,
            by: format!("mail:{}@example.org", p.id()),
            received: received.clone(),
            entropy: None,
            passed: false,
            orders: vec![],
        };
        submission::save(&dir, &sub).unwrap();
    }
    let r = empereur::ops::run::run_game(&g, &[], t0 + Duration::minutes(45)).unwrap();
    assert!(r.resolved.is_empty(), "{r:?}");
    assert!(
        r.attention
            .iter()
            .any(|l| l.contains("waits for the dice beacon") && l.contains("round 123")),
        "{r:?}"
    );
    assert!(r.failures.is_empty(), "{r:?}");
    assert!(asked.lock().unwrap().is_empty());
    // The orders lock is shown in the report of the phase.
    let subject = format!("report of {}", state.phase);
    let locks = |g: &Path| mails_with(&g.join("mail"), &subject);
    assert!(locks(&g).is_empty(), "the phase was reported before the beacon round");

    let r = empereur::ops::run::run_game(&g, &[], at(QUICKNET.round_time(ROUND) + 5)).unwrap();
    assert_eq!(r.resolved.len(), 1, "{r:?}");
    assert!(r.failures.is_empty(), "{r:?}");
    let e = record(&g, &r.resolved[0]);
    assert_eq!(e.beacon_signature.as_deref(), Some(SIG));
    let mails = locks(&g);
    assert!(!mails.is_empty(), "no report was mailed");
    assert!(
        mails
            .iter()
            .all(|m| m.contains("Dice beacon: drand-quicknet round 123")),
        "{mails:?}"
    );
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_game_without_a_beacon_commits_and_keys_as_before() {
    let (_t, g) = new_game();
    let name = resolve(&g, None);
    let dir = GameDir::new(&g);
    let rec = phase::record(&dir).unwrap().unwrap();
    assert_eq!(rec.beacon(), None);
    let text = fs::read_to_string(phase::commitment_path(&dir)).unwrap();
    assert!(!text.contains("beacon"), "{text}");
    let entry_text = fs::read_to_string(entry(&g, &name).join("entry.toml")).unwrap();
    assert!(!entry_text.lines().any(|l| l.starts_with("beacon")), "{entry_text}");
    let seed = phase::read_seed(&dir).unwrap();
    assert_eq!(
        rec.commitment,
        dice::commitment(&rec.game, &rec.phase.to_string(), &seed)
    );
}

#[test]
fn an_unknown_beacon_is_refused_with_its_name() {
    let (_t, g) = new_game();
    let path = g.join("game.toml");
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str("\n[dice]\nbeacon = \"drand-nonesuch\"\n");
    fs::write(&path, text).unwrap();
    let err = GameDir::new(&g).load_config().unwrap_err().to_string();
    assert!(
        err.contains("drand-nonesuch") && err.contains("drand-quicknet"),
        "{err}"
    );
}

#[test]
fn an_undo_keeps_the_round_and_its_signature_and_rerolls_nothing() {
    let (_t, g) = new_game();
    let (url, asked) = relay(4);
    with_beacon(&g, &url);
    resolve_at(&g, time_for_round_123(&g));
    let after = at(QUICKNET.round_time(ROUND) + 2);
    let Resolved::Done(first) = resolve_at(&g, after) else {
        panic!("not resolved")
    };
    let dir = GameDir::new(&g);
    empereur::ops::moderate::undo_game(&dir, "wrong corps")
        .unwrap()
        .unwrap();
    // The reopened phase names the same round; the abandoned phase's seed
    // is revealed with the round its own commitment named.
    assert_eq!(phase::record(&dir).unwrap().unwrap().beacon_round, Some(ROUND));
    let head = history::read_head(&dir).unwrap();
    let undo = record(&g, &head.last);
    assert_eq!(undo.kind, "undo");
    assert!(
        undo.beacon_round.is_some() && undo.beacon_signature.is_none(),
        "{undo:?}"
    );
    let Resolved::Done(again) = resolve_at(&g, after + Duration::hours(1)) else {
        panic!("not resolved again")
    };
    // The signature came from the undone entry, not the relay.
    assert_eq!(asked.lock().unwrap().len(), 1);
    let rolls = |name: &str| -> DiceLog {
        toml::from_str(&fs::read_to_string(entry(&g, name).join("dice.toml")).unwrap()).unwrap()
    };
    assert_eq!(rolls(&first.entry).rolls, rolls(&again.entry).rolls);
    assert_eq!(record(&g, &again.entry).beacon_signature.as_deref(), Some(SIG));
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    let (code, out) = python_verifier(&g);
    assert_eq!(code, 0, "{out}");
}
