//! What one player receives over the demo's 9 phases: mails and bytes
//! per recipient (every `.eml` the file transport wrote, counted once
//! for each address in its To and Cc), beside a baseline measured in the
//! same run: the `demo` of another build of the program, given as
//! `EMPEREUR_BASELINE=<path to its empereur binary>` (the parent
//! commit's, say). Without it only this build's figures are printed.
//! Target: at most 12 mails and 1 MB per player (issue 37). Each
//! recipient's line says what their mails are: the first `opening`,
//! `phase` mails (a report and the next opening), `answer`s to their
//! mail (an acknowledgement or a refusal that no phase mail leaving
//! with it carried), `reminder`s, and the moderator's `report`s.
//!
//!     EMPEREUR_BASELINE=/path/to/parent/empereur cargo bench --bench mailbox
#![allow(clippy::disallowed_methods)] // a benchmark runs processes and reads files

mod common;

use std::collections::BTreeMap;
use std::path::Path;

/// What a mail is for, from its headers (see the module's doc).
fn kind(m: &mail_parser::Message<'_>) -> &'static str {
    let subject = m.subject().unwrap_or("");
    let replied = m
        .header("Auto-Submitted")
        .and_then(|h| h.as_text())
        .is_some_and(|v| v.trim() == "auto-replied");
    if subject.contains("report of") && subject.contains("is open") {
        "phase"
    } else if subject.contains("report of") {
        "report"
    } else if replied {
        "answer"
    } else if subject.contains("are due") || subject.contains("is awaited") {
        "reminder"
    } else if subject.contains("is open") {
        "opening"
    } else {
        "other"
    }
}

/// A recipient's mailbox: mails, bytes, and how many of each kind.
#[derive(Default)]
struct Mailbox {
    mails: usize,
    bytes: u64,
    kinds: BTreeMap<&'static str, usize>,
    /// Map pictures attached (`map-*.png`): most of the bytes.
    maps: usize,
}

impl Mailbox {
    fn kinds(&self) -> String {
        let order = ["opening", "phase", "report", "answer", "reminder", "other"];
        order
            .iter()
            .filter_map(|k| self.kinds.get(k).map(|n| format!("{n} {k}")))
            .collect::<Vec<_>>()
            .join(", ")
            + &format!("; {} map(s)", self.maps)
    }
}

/// Per address: its mailbox, from the `.eml` files under `files`.
fn mailboxes(files: &Path) -> BTreeMap<String, Mailbox> {
    let mut out: BTreeMap<String, Mailbox> = BTreeMap::new();
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
            s.mails += 1;
            s.bytes += raw.len() as u64;
            *s.kinds.entry(kind(&m)).or_default() += 1;
            s.maps += m
                .attachments()
                .filter(|a| {
                    mail_parser::MimeHeaders::attachment_name(*a)
                        .is_some_and(|n| n.starts_with("map-") && n.ends_with(".png"))
                })
                .count();
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
    println!("{:<28} {:>11} {:>12}  what", "recipient", "now", "baseline");
    let (mut worst_n, mut worst_b) = (0, 0);
    for (who, b) in &now {
        let was = match base.as_ref().and_then(|m| m.get(who)) {
            Some(x) => format!("{:>2} {:>5.3} MB", x.mails, x.bytes as f64 / 1e6),
            None => "-".to_string(),
        };
        println!(
            "{who:<28} {:>2} {:>5.3} MB {was:>12}  now: {}",
            b.mails,
            b.bytes as f64 / 1e6,
            b.kinds()
        );
        if let Some(x) = base.as_ref().and_then(|m| m.get(who)) {
            println!("{:<28} {:>11} {:>12}  baseline: {}", "", "", "", x.kinds());
        }
        if !who.starts_with("gm@") {
            (worst_n, worst_b) = (worst_n.max(b.mails), worst_b.max(b.bytes));
        }
    }
    let folded = std::fs::read_to_string(empereur::store::GameDir::new(now_dir.path().join("game")).journal())
        .map(|j| j.lines().filter(|l| l.contains(" fold: ")).count())
        .unwrap_or(0);
    println!("answers carried inside the phase mail they left with: {folded}");
    println!(
        "most a player receives: {worst_n} mails, {:.3} MB (target: 12 mails, 1 MB)",
        worst_b as f64 / 1e6
    );
}
