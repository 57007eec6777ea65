//! `autoplay` of a whole 1805–1815 campaign (seven Player Countries,
//! generated orders, committed dice, the full history on disk), on the
//! disk and in `/dev/shm` in the same run: the ratio is what group
//! commit is for (every phase still reaches its commit point durably).
//! Prints the wall time, phases, fsyncs and barriers per phase, and the
//! ratio disk / memory. Numbers on a shared machine are noisy: repeat.
//!
//! Measurement hygiene, not a product change: every campaign's directory
//! is kept until all the runs are done, then removed. On ext4 without a
//! journal (this machine's disk), creating a file skips each inode freed
//! in its block group in the last 60 seconds (300 while the inode table
//! block is not written back: the kernel's `recently_deleted`), so
//! removing one campaign's ~4,500 files just before the next starts makes
//! every file of the next one scan past them, a cost no game pays (a game
//! is not created in a directory just emptied). The same holds for the
//! files the previous `cargo bench` removed, or anyone else in `/tmp`:
//! so the campaigns on disk are made under a directory flagged as a top
//! of a hierarchy (`FS_TOPDIR_FL`, `chattr +T`), under which ext4 spreads
//! new directories over the block groups, and each campaign lands in a
//! group of its own. `delete-first` measures the old way (each campaign
//! directly in the temporary directory, removed as it ends, just before
//! the next one), to show the difference.
//!
//!     cargo bench --bench autoplay [-- REPEATS] [delete-first]
#![allow(clippy::disallowed_methods)] // a benchmark reads the clock and files

mod common;
use empereur::ops::autoplay::autoplay;
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::store::{GameDir, durable};
use std::path::Path;
use std::time::Instant;

struct Measured {
    secs: f64,
    phases: u32,
    fsyncs: u64,
    barriers: u64,
    /// CPU seconds (user + system).
    cpu: f64,
}

/// One campaign in a new directory under `base`, returned with the
/// campaign's figures so that the caller decides when it is removed.
fn campaign(base: &Path) -> (Measured, tempfile::TempDir) {
    let tmp = tempfile::tempdir_in(base).unwrap();
    let root = tmp.path().join("game");
    common::new_game(&root, DEMO_PLAYERS, "bench");
    let dir = GameDir::new(&root);
    let before = durable::stats();
    let cpu0 = common::cpu_secs(true).unwrap_or(0.0);
    let t = Instant::now();
    let phases = common::size(2_000, 3);
    let s = autoplay(&dir, phases, 7, Some("2026-01-05T10:00:00Z")).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let cpu = common::cpu_secs(true).unwrap_or(0.0) - cpu0;
    let after = durable::stats();
    assert!(s.over.is_some() || s.resolved == phases);
    let m = Measured {
        secs,
        phases: s.resolved,
        fsyncs: after.fsyncs - before.fsyncs,
        barriers: after.barriers - before.barriers,
        cpu,
    };
    (m, tmp)
}

fn main() {
    let repeats: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(common::size(2, 1));
    let delete_first = std::env::args().any(|a| a == "delete-first");
    let tmp = std::env::temp_dir();
    let spread = tempfile::tempdir_in(&tmp).unwrap();
    spread_directories(spread.path());
    let disk = if delete_first {
        tmp.clone()
    } else {
        spread.path().to_path_buf()
    };
    let shm = Path::new("/dev/shm");
    // Every campaign's directory, removed once all runs are done (see the
    // module doc); with `delete-first`, each is dropped as it ends.
    let mut kept = Vec::new();
    for r in 1..=repeats {
        let (d, dir) = campaign(&disk);
        if delete_first {
            drop(dir);
        } else {
            kept.push(dir);
        }
        println!(
            "run {r}: on disk ({}{}): {} phases in {:.2} s ({:.2} s CPU; {:.1} ms a phase), {:.1} fsyncs and {:.1} barriers a phase",
            tmp.display(),
            if delete_first {
                ", the previous campaign removed just before"
            } else {
                ""
            },
            d.phases,
            d.secs,
            d.cpu,
            d.secs * 1000.0 / f64::from(d.phases),
            d.fsyncs as f64 / f64::from(d.phases),
            d.barriers as f64 / f64::from(d.phases)
        );
        if shm.is_dir() {
            let (m, dir) = campaign(shm);
            if delete_first {
                drop(dir);
            } else {
                kept.push(dir);
            }
            println!(
                "run {r}: in /dev/shm (baseline): {} phases in {:.2} s ({:.2} s CPU; {:.1} ms a phase); disk / memory = {:.2}x (CPU {:.2}x); target: the campaign < 2 s on disk and disk / memory <= 2x",
                m.phases,
                m.secs,
                m.cpu,
                m.secs * 1000.0 / f64::from(m.phases),
                d.secs / m.secs,
                d.cpu / m.cpu.max(1e-9)
            );
        }
    }
}

/// Ask the file system to spread the directories made under `d` over its
/// block groups (`FS_TOPDIR_FL`: ext4's Orlov allocator then places each
/// in a group with few directories and many free inodes); best effort.
fn spread_directories(d: &Path) {
    #[cfg(target_os = "linux")]
    if let Ok(f) = std::fs::File::open(d) {
        use rustix::fs::{IFlags, ioctl_getflags, ioctl_setflags};
        if let Ok(flags) = ioctl_getflags(&f) {
            let _ = ioctl_setflags(&f, flags | IFlags::TOPDIR);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = d;
}
