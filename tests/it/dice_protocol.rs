#![allow(clippy::disallowed_methods)] // tests read game files and run python
//! The protocol of docs/dice.md: the worked example, `empereur dice`, and
//! agreement with the independent Python verifier (tests/dice_verifier.py).

use crate::dice_common::*;
use empereur::dice::RollSource;
use empereur::store::history::DiceLog;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command as Std;

const SEED: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

fn python(args: &[&str]) -> (i32, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dice_verifier.py");
    let out = Std::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs (the independent verifier needs it)");
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn dice_roll(purpose: &str, sides: u32, entropy: &[&str]) -> String {
    let mut c = bin();
    c.args(["dice", "roll", "--seed", SEED, "--purpose", purpose, "--sides"])
        .arg(sides.to_string());
    for e in entropy {
        c.args(["--entropy", e]);
    }
    let out = c.output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string()
}

#[test]
fn the_worked_example_of_the_docs_holds() {
    let ent = ["france=Vive l'Empereur", "britain=Rule, Britannia"];
    assert_eq!(dice_roll("land-battle/ulm/1/round-1/attacker", 10, &ent), "7");
    assert_eq!(dice_roll("land-battle/ulm/1/round-1/defender", 10, &ent), "6");
    assert_eq!(dice_roll("naval/channel/1/weather", 6, &ent), "6");
    let out = bin()
        .args([
            "dice",
            "commit",
            "--game-id",
            "demo",
            "--phase",
            "1805-fall-turn-start",
            "--seed",
            SEED,
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "fbbca2849338177d01779870a085cfdb73efea5dcbe56434aa4a6d5fd6f0e91c"
    );
    let doc = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/dice.md")).unwrap();
    assert!(doc.contains("558058f92e245604fd97d6115cd364d10f6ded9689262dc98b8c0d1db2775009"));
    assert!(doc.contains("fbbca2849338177d01779870a085cfdb73efea5dcbe56434aa4a6d5fd6f0e91c"));
}

#[test]
fn python_and_the_binary_agree_on_single_rolls() {
    for (i, sides) in [10u32, 6, 10, 2, 100, 7, 20, 10].iter().enumerate() {
        let purpose = format!("test/{i}/round-{}", i * 3);
        let ent = ["russia=snow", "ottoman=", "spain=olé ∑"];
        let ours = dice_roll(&purpose, *sides, &ent);
        let mut args = vec!["roll", SEED, &purpose];
        let s = sides.to_string();
        args.push(&s);
        args.extend(ent);
        let (code, theirs) = python(&args);
        assert_eq!(code, 0, "{theirs}");
        assert_eq!(theirs.trim(), ours, "{purpose} d{sides}");
    }
}

#[test]
fn python_recomputes_a_game_log_written_by_the_binary() {
    let (_t, g, names) = played();
    let (code, out) = python(&[g.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    // Every committed roll of every entry, recomputed to the same result;
    // the manual ones reported as manual.
    let mut theirs = BTreeMap::new();
    let mut manual = 0;
    let mut locks = 0;
    for l in out.lines() {
        let parts: Vec<&str> = l.split(' ').collect();
        match parts.as_slice() {
            ["ROLL", e, p, r] => {
                theirs.insert((e.to_string(), p.to_string()), r.parse::<u32>().unwrap());
            }
            ["MANUAL", ..] => manual += 1,
            ["LOCK", _, "ok"] => locks += 1,
            // docs/dice.md 1a: the genesis entry, then four resolutions
            // and a moderator entry that opened no phase.
            ["CHAIN", n, "links", "ok"] => assert_eq!(*n, "5", "{out}"),
            _ => panic!("unexpected line {l}"),
        }
    }
    let mut ours = BTreeMap::new();
    for n in &names {
        let p = entry(&g, n).join("dice.toml");
        if !p.exists() {
            continue;
        }
        let log: DiceLog = toml::from_str(&fs::read_to_string(p).unwrap()).unwrap();
        for r in log.rolls.iter().filter(|r| r.source == RollSource::Committed) {
            ours.insert((n.clone(), r.purpose.clone()), r.result);
        }
    }
    assert_eq!(ours.len(), 9);
    assert_eq!(theirs, ours);
    assert_eq!(manual, 3);
    // One orders lock per resolution, each checked.
    assert_eq!(locks, 4);

    // And it notices a changed die, as verify does.
    let path = entry(&g, &names[0]).join("dice.toml");
    let mut log: DiceLog = toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    log.rolls[1].result = log.rolls[1].result % 10 + 1;
    fs::write(&path, toml::to_string(&log).unwrap()).unwrap();
    let (code, out) = python(&[g.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("BAD {}: roll {} recorded", names[0], log.rolls[1].purpose)),
        "{out}"
    );
}

#[test]
fn dice_roll_rejects_bad_input_with_exit_2() {
    let out = bin()
        .args(["dice", "roll", "--seed", "abc", "--purpose", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--seed"));
    let out = bin()
        .args([
            "dice",
            "roll",
            "--seed",
            SEED,
            "--purpose",
            "x",
            "--entropy",
            "bavaria=1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no power 'bavaria'"));
}

#[test]
fn python_verifies_a_game_with_undo_late_powers_manual_dice_and_moderator_orders() {
    use empereur::ids::PowerId;
    use empereur::ops::resolve::{ResolveOptions, resolve_game_with};
    use empereur::store::GameDir;
    use empereur::store::submission::{self, Submission};
    let (_t, g) = new_game();
    let dir = GameDir::new(&g);
    let submit = |power: PowerId, by: &str, entropy: Option<&str>| {
        let state = dir.load_state().unwrap();
        let sub = Submission {
            power,
            phase: state.phase,
            by: by.into(),
            received: "2026-01-01T10:00:00Z".into(),
            entropy: entropy.map(str::to_string),
            passed: false,
            orders: vec![],
        };
        submission::save(&dir, &sub).unwrap();
    };
    let late = |late: Vec<PowerId>| {
        let opts = ResolveOptions {
            now: Some("2026-01-01T00:00:00Z".into()),
            late,
            ..ResolveOptions::default()
        };
        resolve_game_with(&dir, &opts, engine).unwrap();
    };
    submit(PowerId::France, "mail:ann@example.org", Some("Vive l'Empereur"));
    submit(PowerId::Russia, "moderator", None);
    late(vec![PowerId::Spain]);
    submit(PowerId::Austria, "mail:bob@example.org", None);
    // Physical dice are announced before their phase first opens.
    announce_physical_next(&g);
    resolve(&g, None);
    empereur::ops::moderate::undo_game(&dir, "wrong corps")
        .unwrap()
        .unwrap();
    submit(PowerId::Austria, "mail:bob@example.org", Some("again"));
    resolve(&g, None);
    resolve(&g, Some("3,0,6"));
    late(vec![PowerId::Britain, PowerId::Prussia]);
    let (code, out) = verify(&g);
    assert_eq!(code, 0, "{out}");
    let (code, py) = python(&[g.to_str().unwrap()]);
    assert_eq!(code, 0, "{py}");
    let rolls = py.lines().filter(|l| l.starts_with("ROLL ")).count();
    assert_eq!(rolls, 12, "{py}");
    assert!(
        out.ends_with("ok: 6 entries, 12 committed roll(s), 3 manual roll(s)\n"),
        "{out}"
    );
    // Both notice a re-resolution that changed its key.
    let names: Vec<String> = empereur::store::history::list(&dir).unwrap().into_values().collect();
    let redo = &names[3];
    let path = entry(&g, redo).join("entropy.toml");
    fs::write(&path, "[entropy]\n").unwrap();
    let (code, py) = python(&[g.to_str().unwrap()]);
    assert_eq!(code, 1, "{py}");
    assert!(py.contains(&format!("BAD {redo}: entropy.toml does not match")), "{py}");
    let (code, out) = verify(&g);
    assert_eq!(code, 1, "{out}");
}

/// docs/dice.md 7: the Python verifier checks `lock.toml` as the page
/// describes it. Each forgery is resealed (every hash rewritten), so only
/// a lock check can see it.
#[test]
fn python_checks_the_orders_lock() {
    use empereur::ids::PowerId;
    use empereur::store::GameDir;
    use empereur::store::submission::{self, Submission};
    type Forge = fn(String) -> String;
    let forgeries: [(&str, Forge, &str); 4] = [
        // The moderator's orders passed off as the player's.
        (
            "by",
            |t| t.replacen("by = \"moderator\"", "by = \"player\"", 1),
            "does not say who entered the orders of russia",
        ),
        // Another receipt than the resolved file's.
        (
            "receipt",
            |t| {
                let i = t.find("receipt = \"").unwrap() + 11;
                format!("{}{}{}", &t[..i], "0".repeat(64), &t[i + 64..])
            },
            "receipt of",
        ),
        // Manual dice announced as committed.
        (
            "dice",
            |t| t.replace("dice = \"committed\"", "dice = \"manual\""),
            "lock.toml dice",
        ),
        // A submission resolved but never locked.
        (
            "power",
            |t| {
                let i = t.find("[power.france]").unwrap();
                let j = t[i..].find("\n\n").map(|j| i + j + 2).unwrap_or(t.len());
                format!("{}{}", &t[..i], &t[j..])
            },
            "lock.toml locks",
        ),
    ];
    for (what, forge, want) in forgeries {
        let (_t, g) = new_game();
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
        let (code, out) = python(&[g.to_str().unwrap()]);
        assert_eq!(code, 0, "{what}: {out}");
        assert!(out.contains(&format!("LOCK {name} ok")), "{what}: {out}");
        edit(&entry(&g, &name).join("lock.toml"), forge);
        reseal(&g, &name);
        let (code, out) = python(&[g.to_str().unwrap()]);
        assert_eq!(code, 1, "{what}: {out}");
        assert!(
            out.contains(&format!("BAD {name}: ")) && out.contains(want),
            "{what}: {out}"
        );
    }
}
