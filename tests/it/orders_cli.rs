//! `empereur check` and `empereur submit` end to end on the real binary,
//! on a game made from the order-language test scenario.
#![allow(clippy::disallowed_methods)] // tests read and write files

use assert_cmd::Command;
use predicates::prelude::*;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const PLAYERS: &str = r#"
[moderator]
name = "GM"
email = "gm@example.org"

[[player]]
power = "france"
name = "A"
email = "a@example.org"
password = "pa"

[[player]]
power = "britain"
name = "B"
email = "b@example.org"
password = "pb"

[[player]]
power = "austria"
name = "C"
email = "c@example.org"
password = "pc"
"#;

fn bin() -> Command {
    Command::cargo_bin("empereur").unwrap()
}

/// A game in Austria's Player Turn of Fall 1805, made once (argon2 in a
/// debug build is slow) and copied into each test's directory.
fn game(tmp: &Path) -> PathBuf {
    static TEMPLATE: OnceLock<tempfile::TempDir> = OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let t = tempfile::tempdir().unwrap();
        make_game(t.path());
        t
    });
    let dir = tmp.join("g");
    copy_dir(&template.path().join("g"), &dir);
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn make_game(tmp: &Path) -> PathBuf {
    let players = tmp.join("players.toml");
    std::fs::write(&players, PLAYERS).unwrap();
    let dir = tmp.join("g");
    let scen = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/orders-scenario");
    bin()
        .args([
            "new",
            dir.to_str().unwrap(),
            "--scenario",
            scen.to_str().unwrap(),
            "--id",
            "orders-test",
            "--house-seating",
        ])
        .arg("--players")
        .arg(&players)
        .assert()
        .success();
    let state = dir.join("state.toml");
    let text = std::fs::read_to_string(&state).unwrap();
    assert!(text.contains("phase = \"1805-fall-turn-start\""));
    std::fs::write(
        &state,
        text.replace("phase = \"1805-fall-turn-start\"", "phase = \"1805-fall-austria\""),
    )
    .unwrap();
    // The phase's commitment follows (a phase set by hand, without it,
    // is refused on load as a hand edit).
    let commitment = dir.join("phase/commitment");
    let text = std::fs::read_to_string(&commitment).unwrap();
    std::fs::write(
        &commitment,
        text.replace("phase = \"1805-fall-turn-start\"", "phase = \"1805-fall-austria\""),
    )
    .unwrap();
    dir
}

fn write(tmp: &Path, name: &str, text: &str) -> PathBuf {
    let p = tmp.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn check(dir: &Path, file: &Path) -> assert_cmd::assert::Assert {
    bin().arg("check").arg("--game").arg(dir).arg(file).assert()
}

#[test]
fn check_accepts_good_orders_and_ignores_quoted_mail() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let f = write(
        tmp.path(),
        "o.txt",
        "Hi GM,\n\n> POWER France\n> MOVE corps 1 -> Viena\nPOWER Austria\nPHASE 1805-fall-austria\nmove corps 1 to bavaria\nEND\nbye\n-- \nFrancis\n",
    );
    check(&dir, &f)
        .code(0)
        .stdout(predicate::str::contains(
            "accepted (1):\n  MOVE Austrian corps 1 -> Bavaria\n",
        ))
        .stdout(predicate::str::contains("1 accepted, 0 line(s) rejected"))
        .stdout(predicate::str::contains("Viena").not());
}

#[test]
fn check_rejects_a_stale_phase() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let f = write(
        tmp.path(),
        "o.txt",
        "POWER Austria\nPHASE 1805-fall-turn-start\nMOVE corps 1 -> Bavaria\n",
    );
    check(&dir, &f)
        .code(1)
        .stdout(predicate::str::contains(
            "error[stale-phase]: orders are for phase 1805-fall-turn-start but the open phase is 1805-fall-austria",
        ))
        .stdout(predicate::str::contains("accepted (").not());
}

#[test]
fn check_rejects_a_unit_of_another_power() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let f = write(tmp.path(), "o.txt", "POWER Austria\nMOVE French corps 1 -> Alsace\n");
    check(&dir, &f).code(1).stdout(predicate::str::contains(
        "error[not-your-unit]: Austria does not give the orders of French corps 1 (3.31)\n --> ",
    ));
}

#[test]
fn check_suggests_a_misspelt_province_and_explains_an_ambiguous_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let f = write(
        tmp.path(),
        "o.txt",
        "POWER Austria\nMOVE corps 1 -> Viena\nMOVE corps 2 -> Galicia\n",
    );
    let origin = f.display().to_string();
    check(&dir, &f)
        .code(1)
        .stdout(predicate::str::contains(format!(
            "error[unknown-province]: no province 'Viena'\n --> {origin}:2:17\n  |\n2 | MOVE corps 1 -> Viena\n  |                 ^^^^^\n  = help: did you mean Vienna?\n"
        )))
        .stdout(predicate::str::contains(
            "error[ambiguous-province]: 'Galicia' could be West Galicia or East Galicia",
        ));
}

#[test]
fn check_reads_stdin_and_a_mailed_state_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let state = dir.join("state.toml");
    let scen = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/orders-scenario");
    bin()
        .arg("check")
        .arg("--state")
        .arg(&state)
        .arg("--scenario")
        .arg(&scen)
        .args(["--power", "austria", "-"])
        .write_stdin("MOVE corps 1 -> Bohemia\n")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("MOVE Austrian corps 1 -> Bohemia"));
}

#[test]
fn check_fails_operationally_on_a_missing_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    check(&dir, &tmp.path().join("nope.txt"))
        .code(2)
        .stderr(predicate::str::contains("cannot read"));
}

fn submit(dir: &Path, power: &str, file: &Path) -> assert_cmd::assert::Assert {
    bin()
        .arg("submit")
        .arg("--game")
        .arg(dir)
        .args(["--power", power])
        .arg(file)
        .assert()
}

fn receipt_in(stdout: &[u8]) -> String {
    let out = String::from_utf8_lossy(stdout);
    out.lines()
        .find_map(|l| l.strip_prefix("receipt "))
        .unwrap_or_else(|| panic!("no receipt in {out}"))
        .to_string()
}

#[test]
fn submit_stores_accepted_orders_with_a_receipt_and_latest_wins() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let f = write(
        tmp.path(),
        "o.txt",
        "MOVE corps 1 -> Bavaria\nMOVE corps 2 -> Galicia\nSTANDING WITHDRAW NEVER\n",
    );
    let out = submit(&dir, "austria", &f).code(1).get_output().stdout.clone();
    let stored = dir.join("phase/orders/austria.toml");
    let bytes = std::fs::read(&stored).unwrap();
    assert_eq!(receipt_in(&out), hex::encode(Sha256::digest(&bytes)));
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains("MOVE Austrian corps 1 -> Bavaria"), "{text}");
    assert!(text.contains("by = \"moderator\""), "{text}");
    assert!(!text.contains("Galicia"), "rejected order stored: {text}");

    // A later complete submission replaces the earlier one.
    let g = write(tmp.path(), "p.txt", "MOVE corps 1 -> Bohemia\n");
    let out = submit(&dir, "austria", &g).code(0).get_output().stdout.clone();
    let text = std::fs::read_to_string(&stored).unwrap();
    assert!(text.contains("Bohemia") && !text.contains("Bavaria"), "{text}");
    assert_eq!(receipt_in(&out).len(), 64);
    let journal = std::fs::read_to_string(dir.join("journal.log")).unwrap();
    assert_eq!(
        journal
            .lines()
            .filter(|l| l.contains("submit 1805-fall-austria austria"))
            .count(),
        2
    );
}

#[test]
fn submit_stores_nothing_for_a_stale_phase() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let good = write(tmp.path(), "good.txt", "MOVE corps 1 -> Bohemia\n");
    submit(&dir, "austria", &good).code(0);
    let stored = dir.join("phase/orders/austria.toml");
    let before = std::fs::read(&stored).unwrap();
    let stale = write(
        tmp.path(),
        "stale.txt",
        "PHASE 1805-fall-france\nMOVE corps 1 -> Bavaria\n",
    );
    submit(&dir, "austria", &stale)
        .code(1)
        .stdout(predicate::str::contains("nothing stored"))
        .stdout(predicate::str::contains("receipt").not());
    assert_eq!(std::fs::read(&stored).unwrap(), before);
}

#[test]
fn submit_rejects_orders_for_another_power() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let f = write(tmp.path(), "o.txt", "POWER France\nMOVE corps 1 -> Alsace\n");
    submit(&dir, "austria", &f).code(1).stdout(predicate::str::contains(
        "these orders are for France, but they are checked for Austria",
    ));
    assert!(!dir.join("phase/orders/austria.toml").exists());
}
