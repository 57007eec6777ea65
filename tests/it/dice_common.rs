//! Shared by the dice and verify tests: a game created by the real binary,
//! phases resolved through `ops::resolve` with a stand-in engine that
//! rolls dice (the rules engine makes none yet).
#![allow(dead_code, clippy::disallowed_methods)] // test helpers do file I/O

use assert_cmd::Command;
use empereur::dice::Dice;
use empereur::ids::{PhaseId, PowerId, Season, Step};
use empereur::ops::resolve::{ResolveOptions, Resolved, resolve_game_with};
use empereur::rules::Kind;
use empereur::rules::{EngineError, Outcome, PhaseOrders, Resolution};
use empereur::scenario::Scenario;
use empereur::state::State;
use empereur::store::GameDir;
use empereur::store::history::{self, Draft, EntryRecord, Head, sha256_hex};
use empereur::store::submission::Submission;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub fn bin() -> Command {
    Command::cargo_bin("empereur").unwrap()
}

pub fn players() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("games/demo/players.toml")
}

/// A new game `tamper` in a temp dir, created by `empereur new` (once per
/// test binary: password hashing is slow in debug builds) and copied.
pub fn new_game() -> (tempfile::TempDir, PathBuf) {
    static TEMPLATE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, template) = TEMPLATE.get_or_init(create_game);
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    copy_dir(template, &g);
    (t, g)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
}

fn create_game() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    bin()
        .args(["new"])
        .arg(&g)
        .args(["--players"])
        .arg(players())
        .args(["--id", "tamper"])
        .assert()
        .success();
    (t, g)
}

/// A stand-in engine: two d10 battle rolls and a d6 weather roll per
/// phase, cited by outcomes; France's gold grows by the rolls; the calendar
/// moves one season.
pub fn engine(_s: &Scenario, st: &State, _o: &PhaseOrders, dice: &mut dyn Dice) -> Result<Resolution, EngineError> {
    if st.over.is_some() {
        return Err(EngineError::GameOver);
    }
    let mut next = st.clone();
    let phase = st.phase.to_string();
    let mut outcomes = Vec::new();
    for side in ["attacker", "defender"] {
        let purpose = format!("land-battle/{phase}/1/round-1/{side}");
        let r = dice.roll(&purpose, 10)?;
        next.power_mut(PowerId::France).gold += i64::from(r);
        outcomes.push(Outcome::new("4.2", Kind::Battle, format!("the {side} rolls {r}")).die(&purpose, r));
    }
    let purpose = format!("naval/{phase}/weather");
    let w = dice.roll(&purpose, 6)?;
    outcomes.push(Outcome::new("5.0", Kind::Event, format!("weather {w}")).die(&purpose, w));
    let turn = st.phase.turn.next();
    let step = if turn.season == Season::Winter {
        Step::Winter
    } else {
        Step::TurnStart
    };
    next.phase = PhaseId { turn, step };
    Ok(Resolution { state: next, outcomes })
}

pub fn resolve(g: &Path, manual: Option<&str>) -> String {
    let opts = ResolveOptions {
        manual_dice: manual.map(str::to_string),
        now: Some("2026-01-01T00:00:00Z".into()),
        ..ResolveOptions::default()
    };
    match resolve_game_with(&GameDir::new(g), &opts, engine).unwrap() {
        Resolved::Done(s) => s.entry,
        Resolved::Refused(w) => panic!("refused: {w}"),
    }
}

/// Orders entered by the moderator for Austria: a moderator entry.
pub fn moderator_orders(g: &Path) -> String {
    let dir = GameDir::new(g);
    let state = dir.load_state().unwrap();
    let sub = Submission {
        power: PowerId::Austria,
        phase: state.phase,
        by: "moderator".into(),
        received: "2026-01-01T00:00:00Z".into(),
        entropy: Some("phoned in".into()),
        passed: false,
        orders: vec![],
    };
    let mut d = Draft::new("moderator", &state.game, state.phase);
    d.note = "orders of austria entered by the moderator (phoned in)".into();
    d.file("orders/austria.toml", toml::to_string(&sub).unwrap());
    history::append(&dir, &d).unwrap().name
}

/// The phase the stand-in [`engine`] opens after `phase`.
pub fn engine_next(phase: PhaseId) -> PhaseId {
    let turn = phase.turn.next();
    let step = if turn.season == Season::Winter {
        Step::Winter
    } else {
        Step::TurnStart
    };
    PhaseId { turn, step }
}

/// Announce physical dice (docs/dice.md 4) for the phase the next
/// resolution (by the stand-in engine) opens, as `empereur physical-dice`.
pub fn announce_physical_next(g: &Path) {
    let dir = GameDir::new(g);
    let open = dir.load_state().unwrap().phase;
    let phase = engine_next(open);
    bin()
        .args(["physical-dice", "--phase", &phase.to_string(), "--game"])
        .arg(g)
        .assert()
        .success();
}

/// Five entries: resolve, moderator orders, resolve, resolve with manual
/// dice (announced before its phase opened), resolve. Returns the entry
/// names.
pub fn played() -> (tempfile::TempDir, PathBuf, Vec<String>) {
    let (t, g) = new_game();
    let first = resolve(&g, None);
    let orders = moderator_orders(&g);
    announce_physical_next(&g);
    let names = vec![
        first,
        orders,
        resolve(&g, None),
        resolve(&g, Some("3,0,6")),
        resolve(&g, None),
    ];
    (t, g, names)
}

pub fn entry(g: &Path, name: &str) -> PathBuf {
    g.join("history").join(name)
}

pub fn edit(path: &Path, f: impl FnOnce(String) -> String) {
    let text = fs::read_to_string(path).unwrap();
    let new = f(text.clone());
    assert_ne!(text, new, "the edit of {} changed nothing", path.display());
    fs::write(path, new).unwrap();
}

/// Run `empereur verify` and return (exit code, stdout).
pub fn verify(g: &Path) -> (i32, String) {
    let out = bin().args(["verify", "--game"]).arg(g).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
}

/// Rewrite every recorded hash from entry `from` to the head, as a forger
/// with write access to the whole game directory would.
pub fn reseal(g: &Path, from: &str) {
    let dir = GameDir::new(g);
    let listing = history::list(&dir).unwrap();
    // Entry 1 names the genesis entry (entry 0) as its previous one.
    let mut prev: Option<String> = history::genesis(&dir)
        .unwrap()
        .map(|name| sha256_hex(&fs::read(entry(g, &name).join("entry.toml")).unwrap()));
    for name in listing.values() {
        let path = entry(g, name).join("entry.toml");
        let bytes = fs::read(&path).unwrap();
        if name.as_str() < from {
            prev = Some(sha256_hex(&bytes));
            continue;
        }
        let mut rec: EntryRecord = toml::from_str(std::str::from_utf8(&bytes).unwrap()).unwrap();
        for (rel, hash) in rec.files.iter_mut() {
            *hash = sha256_hex(&fs::read(entry(g, name).join(rel)).unwrap());
        }
        rec.previous = prev.clone().unwrap_or_else(|| history::ZERO.to_string());
        let text = toml::to_string(&rec).unwrap();
        fs::write(&path, &text).unwrap();
        prev = Some(sha256_hex(text.as_bytes()));
    }
    let head_path = history::head_path(&dir);
    let mut head: Head = toml::from_str(&fs::read_to_string(&head_path).unwrap()).unwrap();
    head.head = prev.unwrap();
    fs::write(&head_path, toml::to_string(&head).unwrap()).unwrap();
    // The open phase's `chain` names the entry that opened it.
    let opener = listing
        .values()
        .rev()
        .find(|n| history::read_entry(&dir, n).unwrap().0.next_commitment.is_some())
        .cloned()
        .or_else(|| history::genesis(&dir).unwrap());
    if let (Some(name), Some(mut rec)) = (opener, empereur::store::phase::record(&dir).unwrap()) {
        rec.chain = sha256_hex(&fs::read(entry(g, &name).join("entry.toml")).unwrap());
        fs::write(
            empereur::store::phase::commitment_path(&dir),
            toml::to_string(&rec).unwrap(),
        )
        .unwrap();
    }
}
