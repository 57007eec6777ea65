//! The moderator's shell: completion scripts for bash, zsh and fish and
//! one man page per command, generated from the same definitions as
//! `--help` (so a new flag shows up in all three).
#![allow(clippy::disallowed_methods)] // tests read files

use assert_cmd::Command;

fn empereur(args: &[&str]) -> (i32, String) {
    let o = Command::cargo_bin("empereur").unwrap().args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

#[test]
fn completion_scripts_know_the_commands_and_their_flags() {
    let (code, bash) = empereur(&["completions", "bash"]);
    assert_eq!(code, 0, "{bash}");
    assert!(bash.contains("_empereur()"), "{bash}");
    assert!(bash.contains("--password-from-mail"), "seat's flags are completed");
    let (code, zsh) = empereur(&["completions", "zsh"]);
    assert_eq!(code, 0);
    assert!(zsh.starts_with("#compdef empereur"), "{zsh}");
    assert!(zsh.contains("'seat:"), "the commands are listed");
    let (code, fish) = empereur(&["completions", "fish"]);
    assert_eq!(code, 0);
    assert!(fish.contains("complete -c empereur"), "{fish}");
    assert!(fish.contains("-l root"), "games --root is completed");
    let (code, _) = empereur(&["completions", "powershell"]);
    assert_eq!(code, 2, "an unknown shell is a bad argument");
}

#[test]
fn man_writes_one_page_per_command() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("man");
    let (code, said) = empereur(&["man", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{said}");
    let mut pages: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    assert!(
        said.starts_with(&format!("wrote {} man page(s)", pages.len())),
        "{said}"
    );
    for p in [
        "empereur.1",
        "empereur-seat.1",
        "empereur-games.1",
        "empereur-run.1",
        "empereur-scenario-check.1",
    ] {
        assert!(pages.contains(&p.to_string()), "{p} in {pages:?}");
    }
    assert!(!pages.iter().any(|p| p.contains("help")), "{pages:?}");
    let seat = std::fs::read_to_string(out.join("empereur-seat.1")).unwrap();
    assert!(
        seat.starts_with(".ie") || seat.contains(".TH empereur\\-seat"),
        "{seat}"
    );
    assert!(seat.contains("password\\-from\\-mail"), "{seat}");
    assert!(seat.contains("3.2"), "the about text is there: {seat}");
}
