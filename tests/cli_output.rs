//! Standard output that nobody reads: `empereur map | head -1`. The write
//! fails with a broken pipe, which the command treats as the reader having
//! had enough: exit 0, nothing on standard error, no panic.

use std::process::{Command, Stdio};

/// Run `args` with a standard output whose reading end is already closed,
/// so the first write fails whatever its size.
fn run_into_closed_pipe(args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_empereur"))
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("empereur runs")
}

#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    for args in [
        &["map"][..],
        &["map", "--format", "json"],
        &["scenarios"],
        &["scenario", "check", "games/scenarios/1805"],
    ] {
        let out = run_into_closed_pipe(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
}

#[test]
fn output_still_reaches_a_reader() {
    let out = Command::new(env!("CARGO_BIN_EXE_empereur"))
        .arg("scenarios")
        .output()
        .expect("empereur runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1805"));
}
