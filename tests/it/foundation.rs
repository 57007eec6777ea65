//! The foundation end to end on the real binary: `new` + `show`,
//! the per-power view (2.5), the state's TOML round trip, the game lock,
//! bad players files with the exact error text, and `new` refusing to
//! overwrite a game.
#![allow(clippy::disallowed_methods)] // tests read temp files and the clock-free lock

use assert_cmd::Command;
use empereur::ids::PowerId;
use empereur::scenario::Scenario;
use empereur::state::State;
use empereur::store::GameDir;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("empereur").unwrap()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/players")
        .join(name)
}

/// `empereur new DIR --scenario 1805 --players FILE --house-seating`,
/// returning the output (the fixtures seat France and Austria, a house
/// seating: 3.0 gives two players France and Britain).
fn new_game(dir: &Path, players: &Path) -> std::process::Output {
    bin()
        .arg("new")
        .arg(dir)
        .args(["--scenario", "1805", "--house-seating", "--players"])
        .arg(players)
        .output()
        .unwrap()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).trim_end().to_string()
}

fn show_json(dir: &Path, power: Option<&str>) -> serde_json::Value {
    let mut cmd = bin();
    cmd.args(["show", "--game"]).arg(dir).args(["--format", "json"]);
    if let Some(p) = power {
        cmd.args(["--power", p]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn new_then_show_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("campaign");
    let out = new_game(&dir, &fixture("ok.toml"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("created game 'campaign' in {}", dir.display())
    );
    for f in ["game.toml", "state.toml"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    // Passwords are stored only as hashes.
    let config = std::fs::read_to_string(dir.join("game.toml")).unwrap();
    assert!(!config.contains("chosen by alice"), "clear password in game.toml");
    assert!(
        std::fs::read_to_string(dir.join("state.toml"))
            .unwrap()
            .starts_with("format = 1")
    );

    let v = show_json(&dir, None);
    // A new game opens at the first phase of the scenario: Fall 1805's
    // Turn Start.
    assert_eq!(v["phase"], "1805-fall-turn-start");
    let scen = Scenario::embedded("1805").unwrap();
    for p in PowerId::ALL {
        assert_eq!(v["powers"][p.id()]["gold"], scen.power(p).gold, "{p} gold");
        assert_eq!(v["powers"][p.id()]["vp"], 100, "3.5: {p} starts at 100 VP");
    }
    assert_eq!(v["powers"]["france"]["control"]["status"], "player");
    assert_eq!(v["powers"]["austria"]["control"]["status"], "player");
    assert_eq!(v["powers"]["prussia"]["control"]["status"], "inactive", "3.3: NPC");
    assert_eq!(v["provinces"]["vienna"]["controller"], "austria");
    assert_eq!(
        v["provinces"]["corsica"]["controller"], "france",
        "2.5: French garrison"
    );
    assert_eq!(
        v["provinces"]["malta"]["controller"], "britain",
        "2.5: British garrison"
    );
    assert_eq!(v["provinces"]["finland"]["garrison"]["nation"], "sweden", "2.5");
    assert_eq!(v["minors"]["portugal"]["controller"], "britain", "3.45");
    let provinces = v["provinces"].as_object().unwrap();
    assert_eq!(provinces.len(), scen.map.provinces.len());

    let text = bin().args(["show", "--game"]).arg(&dir).output().unwrap();
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).starts_with("Game campaign ("));
}

#[test]
fn power_view_hides_foreign_corps_composition() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    assert!(new_game(&dir, &fixture("ok.toml")).status.success());
    let full = show_json(&dir, None);
    let view = show_json(&dir, Some("austria"));
    let corps = |v: &serde_json::Value, nation: &str| -> Vec<serde_json::Value> {
        v["corps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["nation"] == nation)
            .cloned()
            .collect()
    };
    let own = corps(&view, "austria");
    assert_eq!(own.len(), 14);
    assert_eq!(own, corps(&full, "austria"), "Austria sees its own corps whole");
    assert!(own.iter().all(|c| !c["divisions"].as_array().unwrap().is_empty()));
    for nation in ["france", "russia", "sweden"] {
        let seen = corps(&view, nation);
        assert!(!seen.is_empty());
        assert!(
            seen.iter().all(|c| c["divisions"].as_array().unwrap().is_empty()),
            "{nation} divisions visible to Austria"
        );
        // Positions stay visible (2.5 hides composition only).
        let at = |cs: Vec<serde_json::Value>| cs.iter().map(|c| c["location"].clone()).collect::<Vec<_>>();
        assert_eq!(at(seen), at(corps(&full, nation)));
    }
    assert!(!corps(&full, "france")[0]["divisions"].as_array().unwrap().is_empty());
    assert_eq!(view["powers"]["france"]["pool"]["infantry"], 0);
    assert_eq!(
        view["powers"]["austria"]["pool"]["infantry"],
        full["powers"]["austria"]["pool"]["infantry"]
    );
    // An unknown power is an operational error naming it.
    let out = bin()
        .args(["show", "--game"])
        .arg(&dir)
        .args(["--power", "bavaria"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bavaria"), "{}", stderr(&out));
}

#[test]
fn state_round_trips_through_toml() {
    let scen = Scenario::embedded("1805").unwrap();
    let players = BTreeSet::from([PowerId::France, PowerId::Britain]);
    let state = State::initial(&scen, "rt", &players, BTreeSet::from(["naval".to_string()]));
    let text = state.to_toml();
    let back = State::from_toml(&text).unwrap();
    assert_eq!(back, state);
    assert_eq!(back.to_toml(), text);
    assert!(back.check_against(&scen).is_ok());
    // The binary's TOML view is the same file format.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    assert!(new_game(&dir, &fixture("ok.toml")).status.success());
    let out = bin()
        .args(["show", "--game"])
        .arg(&dir)
        .args(["--format", "toml"])
        .output()
        .unwrap();
    let shown = State::from_toml(&String::from_utf8_lossy(&out.stdout)).unwrap();
    let on_disk = GameDir::new(&dir).load_state().unwrap();
    assert_eq!(shown, on_disk);
}

#[test]
fn a_locked_game_names_the_holder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    std::fs::create_dir_all(&dir).unwrap();
    let game = GameDir::new(&dir);
    let held = game.lock().unwrap();
    // Library: a second handle is refused, naming this process.
    let err = GameDir::new(&dir).lock().unwrap_err().to_string();
    let prefix = format!("game is locked by pid {} since ", std::process::id());
    assert!(err.starts_with(&prefix), "{err}");
    // CLI: `new` takes the lock before writing and fails with exit 2.
    let out = new_game(&dir, &fixture("ok.toml"));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.starts_with(&format!("error: {prefix}")), "{e}");
    let since = e.trim_start_matches(&format!("error: {prefix}"));
    assert!(since.len() == 20 && since.ends_with('Z'), "timestamp: {since}");
    assert!(!dir.join("state.toml").exists(), "nothing written under a held lock");
    drop(held);
    let out = new_game(&dir, &fixture("ok.toml"));
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn new_refuses_to_overwrite() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    assert!(new_game(&dir, &fixture("ok.toml")).status.success());
    let before = std::fs::read_to_string(dir.join("state.toml")).unwrap();
    let out = new_game(&dir, &fixture("ok.toml"));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {} already holds a game; refusing to overwrite it",
            dir.display()
        )
    );
    assert_eq!(std::fs::read_to_string(dir.join("state.toml")).unwrap(), before);
}

/// Run `new` with a bad players file: exit 2, the exact error, no game.
fn bad_players(file: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let out = new_game(&dir, &fixture(file));
    assert_eq!(out.status.code(), Some(2), "{file}");
    assert!(!dir.join("state.toml").exists());
    stderr(&out)
}

#[test]
fn unknown_power_names_the_line() {
    let f = fixture("unknown_power.toml");
    assert_eq!(
        bad_players("unknown_power.toml"),
        format!(
            "error: {}:12: unknown power 'bavaria' (expected one of france, britain, russia, austria, prussia, spain, ottoman)",
            f.display()
        )
    );
}

#[test]
fn duplicate_address_names_the_line() {
    let f = fixture("duplicate_address.toml");
    assert_eq!(
        bad_players("duplicate_address.toml"),
        format!(
            "error: {}:14: address 'Alice@example.org' is used by two players",
            f.display()
        )
    );
}

#[test]
fn syntax_error_names_the_line() {
    let f = fixture("syntax_error.toml");
    let e = bad_players("syntax_error.toml");
    let prefix = format!("error: {}:7: ", f.display());
    assert!(e.starts_with(&prefix), "{e}");
    assert!(e.len() > prefix.len(), "a message follows the line: {e}");
}

#[test]
fn unknown_key_names_the_line() {
    let f = fixture("unknown_key.toml");
    let e = bad_players("unknown_key.toml");
    let prefix = format!("error: {}:9: unknown field `pasword`", f.display());
    assert!(e.starts_with(&prefix), "{e}");
}
