//! Ingest benchmark: 10,000 order mails from a Maildir into one game
//! (archive, parse, authenticate, check, store, acknowledge). Prints
//! messages per second, peak memory, and separately the cost of one
//! argon2 password check (which a run pays once per distinct password).
//!
//!     cargo bench --bench ingest            (N=10000)
//!     EMPEREUR_BENCH_N=2000 cargo bench --bench ingest
#![allow(clippy::disallowed_methods)] // a benchmark reads the clock and files

use chrono::Utc;
use empereur::mail::ingest::{self, GameCtx, Run, Verdict};
use empereur::ops::new::{NewOptions, create_from};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

const PLAYERS: &[(&str, &str)] = &[
    ("france", "austerlitz"),
    ("britain", "trafalgar"),
    ("russia", "borodino"),
    ("austria", "aspern"),
    ("prussia", "leipzig"),
    ("spain", "bailen"),
    ("ottoman", "nile"),
];

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

fn main() {
    let n: usize = std::env::var("EMPEREUR_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    // EMPEREUR_BENCH_DIR=/dev/shm measures the code without the disk's
    // fsync latency.
    let tmp = match std::env::var("EMPEREUR_BENCH_DIR") {
        Ok(d) => tempfile::tempdir_in(d).unwrap(),
        Err(_) => tempfile::tempdir().unwrap(),
    };
    let mut toml = String::from("[moderator]\nname = \"GM\"\nemail = \"gm@bench.example.org\"\n");
    for (p, pw) in PLAYERS {
        toml.push_str(&format!(
            "[[player]]\npower = \"{p}\"\nname = \"Player of {p}\"\nemail = \"{p}@bench.example.org\"\npassword = \"{pw}\"\n"
        ));
    }
    let players = empereur::store::players::parse("players", &toml).unwrap();
    let root = tmp.path().join("game");
    create_from(
        &NewOptions {
            dir: root.clone(),
            scenario: "1805".into(),
            players: PathBuf::new(),
            options: vec![],
            id: Some("bench".into()),
        },
        players,
    )
    .unwrap();

    // The Maildir: every 10th message has a wrong password.
    let maildir = tmp.path().join("Maildir");
    for d in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(d)).unwrap();
    }
    for i in 0..n {
        let (p, pw) = PLAYERS[i % PLAYERS.len()];
        let pw = if i % 10 == 9 { "wrong" } else { pw };
        let msg = format!(
            "From: Player of {p} <{p}@bench.example.org>\r\nTo: gm@bench.example.org\r\nSubject: orders {i}\r\nMessage-ID: <{i}.bench@bench.example.org>\r\nDate: Mon, 30 Nov 2026 09:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nGAME bench\r\nPOWER {p}\r\nPASSWORD {pw}\r\n\r\nMOVE FIRST\r\nEND\r\n\r\n-- \r\nSent from my phone\r\n"
        );
        std::fs::write(
            maildir.join("new").join(format!("{:010}.{i}.bench", 1_796_000_000 + i)),
            msg,
        )
        .unwrap();
    }

    // Password cost, separately: Argon2::default() = argon2id v19,
    // m = 19456 KiB, t = 2, p = 1.
    let hash = empereur::store::password::hash("austerlitz").unwrap();
    let t = Instant::now();
    let k = 5;
    for _ in 0..k {
        assert!(empereur::store::password::verify("austerlitz", &hash));
    }
    let per_check = t.elapsed().as_secs_f64() / k as f64;

    let ctx = GameCtx::load(&root).unwrap();
    let mut run = Run::new(Utc::now());
    let t = Instant::now();
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
    let secs = t.elapsed().as_secs_f64();
    let hash_secs = run.cache.verifications as f64 * per_check;
    println!("ingest: {n} messages in {secs:.2} s = {:.0} msgs/s", n as f64 / secs);
    println!(
        "  of which argon2: {} checks x {:.1} ms = {:.2} s; without it: {:.0} msgs/s",
        run.cache.verifications,
        per_check * 1000.0,
        hash_secs,
        n as f64 / (secs - hash_secs).max(1e-9)
    );
    println!("  verdicts: {verdicts:?}");
    println!(
        "  outbox: {} acknowledgements",
        empereur::mail::outbox::queued(&ctx.dir).unwrap().len()
    );
    if let Some(kib) = peak_rss_kib() {
        println!("  peak memory (VmHWM): {:.1} MiB", kib as f64 / 1024.0);
    }
    println!(
        "password check: argon2id m=19456 KiB t=2 p=1: {:.1} ms per check",
        per_check * 1000.0
    );
}
