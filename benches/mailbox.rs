//! What one player receives over the demo's 9 phases: mails and bytes
//! per recipient (every `.eml` the file transport wrote, counted once
//! for each address in its To and Cc), beside a baseline measured in the
//! same run: the `demo` of another build of the program, given as
//! `EMPEREUR_BASELINE=<path to its empereur binary>` (the parent
//! commit's, say). Without it only this build's figures are printed.
//! Target: at most 12 mails and 1 MB per player (issue 37).
//!
//!     EMPEREUR_BASELINE=/path/to/parent/empereur cargo bench --bench mailbox
#![allow(clippy::disallowed_methods)] // a benchmark runs processes and reads files

mod common;

use std::collections::BTreeMap;
use std::path::Path;

/// Per address: (mails, bytes), from the `.eml` files under `files`.
fn mailboxes(files: &Path) -> BTreeMap<String, (usize, u64)> {
    let mut out: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    for e in std::fs::read_dir(files).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "eml") {
            continue;
        }
        let raw = std::fs::read(&path).unwrap();
        let m = mail_parser::MessageParser::default().parse(&raw[..]).unwrap();
        let mut whom: Vec<String> = Vec::new();
        for a in [m.to(), m.cc()].into_iter().flatten() {
            whom.extend(a.iter().filter_map(|x| x.address()).map(str::to_string));
        }
        for w in whom {
            let s = out.entry(w).or_default();
            s.0 += 1;
            s.1 += raw.len() as u64;
        }
    }
    out
}

/// The demo's mail under `out` (`demo --out` writes it to `game/mail/files`).
fn demo_files(out: &Path) -> std::path::PathBuf {
    out.join("game").join("mail").join("files")
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let phases = common::size(9, 2);
    let now_dir = tempfile::tempdir().unwrap();
    let lines = empereur::ops::demo::play(now_dir.path(), phases).unwrap();
    assert!(lines.iter().any(|l| l.starts_with("verify: ok")), "{lines:?}");
    let now = mailboxes(&demo_files(now_dir.path()));
    let base_dir = tempfile::tempdir().unwrap();
    let base = std::env::var_os("EMPEREUR_BASELINE").map(|bin| {
        let st = std::process::Command::new(bin)
            .arg("demo")
            .arg("--out")
            .arg(base_dir.path())
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "the baseline's demo failed");
        mailboxes(&demo_files(base_dir.path()))
    });
    println!("mailbox over the demo ({phases} phases): mails and MB per recipient");
    println!("{:<32} {:>12} {:>18}", "recipient", "now", "baseline");
    let (mut worst_n, mut worst_b) = (0, 0);
    for (who, (n, b)) in &now {
        let was = match base.as_ref().and_then(|m| m.get(who)) {
            Some((bn, bb)) => format!("{bn:>3} {:>8.2} MB", *bb as f64 / 1e6),
            None => "-".to_string(),
        };
        println!("{who:<32} {n:>3} {:>5.2} MB {was:>18}", *b as f64 / 1e6);
        if !who.starts_with("gm@") {
            (worst_n, worst_b) = (worst_n.max(*n), worst_b.max(*b));
        }
    }
    println!(
        "most a player receives: {worst_n} mails, {:.2} MB (target: 12 mails, 1 MB)",
        worst_b as f64 / 1e6
    );
}
