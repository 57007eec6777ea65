//! A hand-edited `game.toml` or `state.toml` that is
//! well-formed TOML but nonsense is refused when loaded, naming the file,
//! the line and the key, with exit 2 and nothing changed; `verify` says
//! where `state.toml` parts from the last entry's `state-after.toml`.
#![allow(clippy::disallowed_methods)] // tests read and write files

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const PLAYERS: &str = "[moderator]\nname = \"GM\"\nemail = \"gm@demo.example.org\"\n\
[[player]]\npower = \"france\"\nname = \"Napoleon's Player\"\nemail = \"france@demo.example.org\"\npassword = \"austerlitz\"\n\
[[player]]\npower = \"austria\"\nname = \"Francis's Player\"\nemail = \"austria@demo.example.org\"\npassword = \"aspern\"\n";

fn bin() -> Command {
    let mut c = Command::cargo_bin("empereur").unwrap();
    c.env("EMPEREUR_NOW", "2026-11-30T10:00:00Z");
    c
}

fn new_game(tmp: &Path) -> PathBuf {
    std::fs::write(tmp.join("players.toml"), PLAYERS).unwrap();
    let dir = tmp.join("demo");
    bin()
        .args(["new", "--house-seating"])
        .arg(&dir)
        .args(["--id", "demo", "--players"])
        .arg(tmp.join("players.toml"))
        .assert()
        .success();
    dir
}

/// Every file of the game and its bytes (the lock file aside).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.file_name().is_some_and(|n| n != ".lock") {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The 1-based line of the first line of `file` that starts with `prefix`
/// after line `after`.
fn line_of(file: &Path, prefix: &str, after: usize) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .enumerate()
        .skip(after)
        .find(|(_, l)| l.starts_with(prefix))
        .map(|(i, _)| i + 1)
        .unwrap_or_else(|| panic!("no line starting with {prefix}"))
}

/// Replace line `line` (1-based) of `file` with `to`, which differs.
fn set_line(file: &Path, line: usize, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert_ne!(lines[line - 1], to);
    lines[line - 1] = to;
    std::fs::write(file, lines.join("\n") + "\n").unwrap();
}

fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{from} not in {}", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
}

const ORDERS: &str = "From: france@demo.example.org\r\nTo: gm@demo.example.org\r\nSubject: orders\r\nMessage-ID: <l1@x.example.org>\r\nDate: Mon, 30 Nov 2026 09:15:00 +0000\r\n\r\nGAME demo\r\nPOWER france\r\nPASSWORD austerlitz\r\nPHASE 1805-fall-turn-start\r\nMOVE FIRST\r\nEND\r\n";

/// Each command that loads the game refuses it with exit 2, naming
/// `want` (file:line: key: what), and leaves every file as it was.
fn refused_everywhere(game: &Path, want: &[&str]) {
    let mail = game.parent().unwrap().join("orders.eml");
    std::fs::write(&mail, ORDERS).unwrap();
    let before = snapshot(game);
    let runs: [Vec<&std::ffi::OsStr>; 4] = [
        vec!["status".as_ref(), "--game".as_ref(), game.as_os_str()],
        vec!["ingest".as_ref(), "--game".as_ref(), game.as_os_str(), mail.as_os_str()],
        vec!["run".as_ref(), "--game".as_ref(), game.as_os_str()],
        vec!["resolve".as_ref(), "--game".as_ref(), game.as_os_str()],
    ];
    for args in runs {
        let out = bin().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        for w in want {
            assert!(err.contains(w), "{args:?}: no `{w}` in\n{err}");
        }
        assert!(snapshot(game) == before, "{args:?} changed the game");
    }
}

#[test]
fn a_corps_in_an_unknown_province_is_refused_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let state = game.join("state.toml");
    let line = line_of(&state, "location = \"vienna\"", 0);
    edit(&state, "location = \"vienna\"", "location = \"atlantis\"");
    refused_everywhere(
        &game,
        &[
            &format!("state.toml:{line}: corps["),
            "].location: 'atlantis' is not a province",
        ],
    );
}

#[test]
fn an_impossible_number_is_refused_with_its_key() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let state = game.join("state.toml");
    let line = line_of(&state, "gold = ", line_of(&state, "[powers.austria]", 0));
    set_line(&state, line, "gold = -999999999999");
    refused_everywhere(
        &game,
        &[&format!(
            "state.toml:{line}: powers.austria.gold: -999999999999 is impossible"
        )],
    );
}

#[test]
fn a_pool_past_the_number_limit_is_refused_with_its_key() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let state = game.join("state.toml");
    let line = line_of(&state, "infantry = ", line_of(&state, "[powers.austria.pool]", 0));
    set_line(&state, line, "infantry = 4000000000");
    refused_everywhere(
        &game,
        &[&format!(
            "state.toml:{line}: powers.austria.pool.infantry: 4000000000 is impossible (at most 1000000000)"
        )],
    );
}

#[test]
fn a_misspelt_key_is_refused_not_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let state = game.join("state.toml");
    let line = line_of(&state, "location = \"paris\"", 0);
    // serde would read the corps as off the map; it is refused instead.
    edit(&state, "location = \"paris\"", "locaton = \"paris\"");
    refused_everywhere(&game, &[&format!("line {line}: unknown field `locaton`")]);
}

#[test]
fn two_players_for_one_power_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let config = game.join("game.toml");
    let line = line_of(&config, "power = \"austria\"", 0);
    edit(&config, "power = \"austria\"", "power = \"france\"");
    refused_everywhere(
        &game,
        &[
            "game.toml",
            &format!("line {line}: player[1].power: france has two players (player[0] too)"),
        ],
    );
}

#[test]
fn an_address_that_cannot_be_mailed_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let config = game.join("game.toml");
    let line = line_of(&config, "email = \"austria@", 0);
    edit(&config, "austria@demo.example.org", "a..b@x.org");
    refused_everywhere(
        &game,
        &[
            "game.toml",
            &format!("line {line}: player[1].email: 'a..b@x.org' cannot be mailed"),
        ],
    );
    // The moderator's address too.
    edit(&config, "a..b@x.org", "austria@demo.example.org");
    let line = line_of(&config, "email = \"gm@", 0);
    edit(&config, "gm@demo.example.org", "gm@");
    refused_everywhere(
        &game,
        &[&format!("line {line}: moderator.email: 'gm@' cannot be mailed")],
    );
}

#[test]
fn the_untouched_game_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    bin().args(["status", "--game"]).arg(&game).assert().success();
}
