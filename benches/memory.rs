//! Peak memory (VmHWM, Linux) of `new` with seven players and of `demo`,
//! each in a fresh process (this bench runs itself as the child), beside
//! its baselines measured in the same run: the same child doing nothing
//! (the floor of a process that has loaded the program), and that floor
//! plus argon2's block buffer (7 MiB: the deliberate cost of hashing a
//! password, which `new` must pay once). Targets: `new` 40 MB (issue 19),
//! `demo` 32 MB (issue 37). This bench's binary carries the test helpers
//! and the bench itself, so its floor is above the shipped binary's: the
//! issue's figure is `target/release/empereur demo` (docs/performance.md).
//!
//!     cargo bench --bench memory
#![allow(clippy::disallowed_methods)] // a benchmark runs processes and reads files

mod common;

use empereur::ops::new::{NewOptions, create};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Peak resident memory of this process, in KiB.
fn peak_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

/// The child: do `what` in `dir`, then print the peak.
fn child(what: &str, dir: &Path) {
    let players = Path::new(env!("CARGO_MANIFEST_DIR")).join("games/demo/players.toml");
    match what {
        "nothing" => {}
        "new" => create(&NewOptions {
            dir: dir.join("game"),
            scenario: "1805".into(),
            players,
            options: vec![],
            id: Some("memory".into()),
            house_seating: true,
        })
        .map(|_| ())
        .unwrap(),
        "demo" => {
            let lines = empereur::ops::demo::play(dir, common::size(9, 1)).unwrap();
            assert!(lines.iter().any(|l| l.starts_with("verify: ok")), "{lines:?}");
        }
        other => panic!("unknown child {other}"),
    }
    println!("peak-kib {}", peak_kib().unwrap_or(0));
}

/// Run the child `what` in a fresh process; its peak in MiB.
fn measure(what: &str) -> f64 {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--child", what])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child {what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let kib: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("peak-kib "))
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN);
    kib / 1024.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], &PathBuf::from(&args[i + 2]));
        return;
    }
    if !Path::new("/proc/self/status").exists() {
        println!("memory: no /proc/self/status here; nothing measured");
        return;
    }
    let floor = measure("nothing");
    // the block buffer of a new hash (`store::password::params`), in MiB
    let argon2 = f64::from(empereur::store::password::params().unwrap().m_cost()) / 1024.0;
    for (what, target_mb) in [("new", 40e6), ("demo", 32e6)] {
        let mib = measure(what);
        println!(
            "peak memory of {what} (7 players): {mib:.1} MiB; baselines: a process doing nothing {floor:.1} MiB, plus one argon2 buffer {:.1} MiB; target {:.0} MB = {:.1} MiB",
            floor + argon2,
            target_mb / 1e6,
            target_mb / (1024.0 * 1024.0)
        );
    }
}
