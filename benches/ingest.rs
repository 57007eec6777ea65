//! Ingest benchmark: N order mails (default 2,000) from a Maildir into
//! one game (archive, parse, authenticate, check, store, acknowledge),
//! on the disk and in `/dev/shm`, with the baseline measured in the same
//! run: `cp -r` of the same Maildir plus `sync`. Every mail carries real
//! orders for the open phase (Turn Start: standing orders, and France's
//! MOVE FIRST), so each one with the right password is a submission.
//!
//! Each place is measured twice, each time in a fresh game: as a run
//! meets the mail (one argon2 check per distinct password: the cost is
//! deliberate), and with the run's password cache filled before the
//! clock starts (no argon2 in the timed part: the bench asserts it), so
//! the figure "without argon2" is measured, not computed. Prints
//! messages per second, fsyncs per message, the ratio to the baseline,
//! and peak memory. Numbers on a shared machine are noisy.
//!
//!     cargo bench --bench ingest
//!     EMPEREUR_BENCH_N=10000 cargo bench --bench ingest
#![allow(clippy::disallowed_methods)] // a benchmark reads the clock and files

mod common;

use chrono::Utc;
use empereur::mail::ingest::{self, GameCtx, Run, Verdict};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Each power, its password and its capital (a STANDING RETREAT there
/// is a legal order in Turn Start).
const PLAYERS: &[(&str, &str, &str)] = &[
    ("france", "austerlitz", "Paris"),
    ("britain", "trafalgar", "London"),
    ("russia", "borodino", "Moscow"),
    ("austria", "aspern", "Vienna"),
    ("prussia", "leipzig", "Berlin"),
    ("spain", "bailen", "Madrid"),
    ("ottoman", "nile", "Constantinople"),
];

/// One order mail of `p` with password `pw`.
fn order_mail(tag: &str, i: usize, (p, _, capital): (&str, &str, &str), pw: &str) -> String {
    let first = if p == "france" { "MOVE FIRST\r\n" } else { "" };
    format!(
        "From: Player of {p} <{p}@bench.example.org>\r\nTo: gm@bench.example.org\r\nSubject: orders {i}\r\nMessage-ID: <{i}.{tag}@bench.example.org>\r\nDate: Mon, 30 Nov 2026 09:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nGAME bench\r\nPOWER {p}\r\nPASSWORD {pw}\r\n\r\n{first}STANDING RETREAT {capital}\r\nSTANDING COMBAT ATTACKING grand assault\r\nSTANDING WITHDRAW IF OUTNUMBERED 3:1\r\nEND\r\n\r\n-- \r\nSent from my phone\r\n"
    )
}

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

struct Measured {
    secs: f64,
    /// argon2 checks in the timed part.
    verifications: u64,
    fsyncs: u64,
    verdicts: BTreeMap<&'static str, usize>,
    acks: usize,
    baseline: f64,
    /// CPU seconds of the ingest and of `cp -r` + `sync` (0 unknown).
    cpu: f64,
    baseline_cpu: f64,
}

/// Ingest `n` mails into a new game under `base`; time `cp -r` + `sync`
/// of the same Maildir there too. `warm`: the password cache is filled
/// before the clock starts.
fn measure(base: &Path, n: usize, warm: bool) -> Measured {
    let tmp = tempfile::tempdir_in(base).unwrap();
    let mut toml = String::from("[moderator]\nname = \"GM\"\nemail = \"gm@bench.example.org\"\n");
    for (p, pw, _) in PLAYERS {
        toml.push_str(&format!(
            "[[player]]\npower = \"{p}\"\nname = \"Player of {p}\"\nemail = \"{p}@bench.example.org\"\npassword = \"{pw}\"\n"
        ));
    }
    let root = tmp.path().join("game");
    common::new_game(&root, &toml, "bench");

    // The Maildir: every 10th message has a wrong password.
    let maildir = tmp.path().join("Maildir");
    for d in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(d)).unwrap();
    }
    for i in 0..n {
        let who = PLAYERS[i % PLAYERS.len()];
        let pw = if i % 10 == 9 { "wrong" } else { who.1 };
        let msg = order_mail("bench", i, who, pw);
        std::fs::write(
            maildir.join("new").join(format!("{:010}.{i}.bench", 1_796_000_000 + i)),
            msg,
        )
        .unwrap();
    }
    // Written files on their way to the disk would be charged to
    // whichever measurement comes first.
    let _ = std::process::Command::new("sync").status();

    // The baseline: copy the same files and make them durable.
    let child_cpu = common::cpu_secs(false).unwrap_or(0.0);
    let t = Instant::now();
    let ok = std::process::Command::new("cp")
        .arg("-r")
        .arg(&maildir)
        .arg(tmp.path().join("copy"))
        .status()
        .is_ok_and(|s| s.success())
        && std::process::Command::new("sync").status().is_ok_and(|s| s.success());
    let baseline = if ok { t.elapsed().as_secs_f64() } else { f64::NAN };
    let baseline_cpu = common::cpu_secs(false).unwrap_or(0.0) - child_cpu;

    let ctx = GameCtx::load(&root).unwrap();
    let mut run = Run::new(Utc::now());
    if warm {
        // Every password the Maildir holds, right and wrong, checked once.
        let group = empereur::store::durable::group();
        for (k, who) in PLAYERS.iter().enumerate() {
            for (j, pw) in [who.1, "wrong"].into_iter().enumerate() {
                let m = order_mail("warm", 2 * k + j, *who, pw);
                ingest::ingest_game(&ctx, m.as_bytes(), &mut run).unwrap();
            }
        }
        run.flush().unwrap();
        group.commit().unwrap();
    }
    let checked_before = run.cache.verifications;
    let before = empereur::store::durable::stats();
    let cpu0 = common::cpu_secs(true).unwrap_or(0.0);
    let t = Instant::now();
    // As `ingest` does: one group commit, batches marked processed.
    let group = empereur::store::durable::group();
    let files = ingest::maildir_files(&maildir).unwrap();
    let mut verdicts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let rss0 = rss_kib();
    for (i, f) in files.iter().enumerate() {
        if std::env::var("EMPEREUR_BENCH_TRACE").is_ok() && i % 1000 == 0 {
            eprintln!(
                "  {i}: rss {} KiB (start {} KiB)",
                rss_kib().unwrap_or(0),
                rss0.unwrap_or(0)
            );
        }
        let m = std::fs::read(f).unwrap();
        let h = ingest::ingest_game(&ctx, &m, &mut run).unwrap();
        assert!(!matches!(h.verdict, Verdict::Duplicate));
        *verdicts.entry(h.verdict.code()).or_default() += 1;
        if run.batched() >= 256 {
            run.flush().unwrap();
        }
    }
    run.flush().unwrap();
    let verifications = run.cache.verifications - checked_before;
    drop(run);
    group.commit().unwrap();
    let secs = t.elapsed().as_secs_f64();
    let cpu = common::cpu_secs(true).unwrap_or(0.0) - cpu0;
    let fsyncs = empereur::store::durable::stats().fsyncs - before.fsyncs;
    let acks = empereur::mail::outbox::queued(&ctx.dir).unwrap().len();
    if warm {
        assert_eq!(verifications, 0, "the cache was filled: no argon2 in the timed part");
    }
    // Nine in ten carry the right password: each is a submission.
    let accepted = verdicts.get("accepted").copied().unwrap_or(0);
    assert_eq!(accepted, n - n / 10, "real orders, each accepted: {verdicts:?}");
    Measured {
        secs,
        verifications,
        fsyncs,
        verdicts,
        acks,
        baseline,
        cpu,
        baseline_cpu,
    }
}

fn main() {
    let n: usize = std::env::var("EMPEREUR_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(common::size(2_000, 30));
    let repeats: usize = std::env::var("EMPEREUR_BENCH_REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(common::size(2, 1));

    // Password cost, separately: argon2id v19 with the parameters of new
    // hashes (`store::password::params`).
    let hash = empereur::store::password::hash("austerlitz").unwrap();
    let t = Instant::now();
    let k = common::size(5, 1);
    for _ in 0..k {
        assert!(empereur::store::password::verify("austerlitz", &hash));
    }
    let per_check = t.elapsed().as_secs_f64() / k as f64;
    let p = empereur::store::password::params().unwrap();
    println!(
        "password check: argon2id m={} KiB t={} p={}: {:.1} ms per check",
        p.m_cost(),
        p.t_cost(),
        p.p_cost(),
        per_check * 1000.0
    );

    let mut places = vec![("disk", std::env::temp_dir())];
    if Path::new("/dev/shm").is_dir() {
        places.push(("/dev/shm", PathBuf::from("/dev/shm")));
    }
    for r in 1..=repeats {
        for (label, base) in &places {
            for warm in [false, true] {
                let m = measure(base, n, warm);
                let how = if warm {
                    "password cache filled first, no argon2 timed"
                } else {
                    "as a run meets them"
                };
                println!(
                    "run {r}, {label} ({}), {how}: {n} messages in {:.3} s = {:.0} msgs/s; {} argon2 check(s) timed; {:.2} fsyncs a message",
                    base.display(),
                    m.secs,
                    n as f64 / m.secs,
                    m.verifications,
                    m.fsyncs as f64 / n as f64
                );
                println!(
                    "  baseline cp -r + sync of the same Maildir: {:.3} s; ingest / baseline = {:.2}x; target {}",
                    m.baseline,
                    m.secs / m.baseline,
                    match (*label, warm) {
                        ("disk", true) => ">= 2,000 msgs/s and <= 2x cp -r + sync",
                        ("disk", false) => "none (the argon2 cost is deliberate)",
                        (_, true) => ">= 5,000 msgs/s",
                        (_, false) => "none (the argon2 cost is deliberate)",
                    }
                );
                println!(
                    "  CPU (user + system): ingest {:.3} s = {:.0} msgs per CPU second; cp -r + sync {:.3} s",
                    m.cpu,
                    n as f64 / m.cpu.max(1e-9),
                    m.baseline_cpu
                );
                println!("  verdicts: {:?}; {} acknowledgements queued", m.verdicts, m.acks);
            }
        }
    }
    if let Some(kib) = peak_rss_kib() {
        println!("peak memory (VmHWM): {:.1} MiB", kib as f64 / 1024.0);
    }
}
