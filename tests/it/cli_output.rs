//! Standard output that nobody reads: `empereur map | head -1`. The write
//! fails with a broken pipe, which the command treats as the reader having
//! had enough: exit 0, nothing on standard error, no panic. Any other
//! error writing the output fails the command (exit 2), except for a mail
//! server's pipe, which reads only the exit code.
#![allow(clippy::disallowed_methods)] // tests read and write game files

use crate::players_common;
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

/// Run `args` with `/dev/full` as standard output: every write fails with
/// "no space left", an I/O error that is not the reader going away.
fn run_into_a_full_disk(args: &[&std::ffi::OsStr], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let mut child = Command::new(env!("CARGO_BIN_EXE_empereur"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .spawn()
        .expect("empereur runs");
    child.stdin.take().expect("stdin").write_all(stdin).expect("written");
    child.wait_with_output().expect("empereur ends")
}

#[test]
fn an_output_that_cannot_be_written_is_an_operational_error() {
    let out = run_into_a_full_disk(&["scenarios".as_ref()], b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn a_piped_mail_is_answered_whatever_becomes_of_the_output() {
    // The mail server reads only the exit code: 0 once the message is
    // archived and answered, even when the line saying so cannot be written.
    let tmp = tempfile::tempdir().unwrap();
    let game = players_common::new_game(tmp.path());
    let raw = players_common::mail(
        "france@demo.example.org",
        "full1",
        &players_common::text("france", "austerlitz", ""),
    );
    let out = run_into_a_full_disk(
        &["ingest".as_ref(), "--game".as_ref(), game.as_os_str(), "-".as_ref()],
        &raw,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    // The same mail from a file: the moderator must hear that the output
    // was lost.
    let file = tmp.path().join("full1.eml");
    std::fs::write(&file, &raw).unwrap();
    let out = run_into_a_full_disk(
        &["ingest".as_ref(), "--game".as_ref(), game.as_os_str(), file.as_os_str()],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    // A game that is not there: the server keeps the message and retries.
    let nowhere = tmp.path().join("nowhere");
    let out = run_into_a_full_disk(
        &["ingest".as_ref(), "--game".as_ref(), nowhere.as_os_str(), "-".as_ref()],
        b"From: a@b.org\r\n\r\nx",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(75), "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.ends_with("; the mail server should try again later\n"),
        "{stderr}"
    );
}
