//! `autoplay` runs its resolutions as one batch behind a checkpoint
//! (`store::checkpoint`): few fsync passes for the whole batch, and a
//! batch that did not end is recovered by the next command that takes
//! the game lock: kept as it stands when only the process died, put back
//! to the checkpoint when the machine restarted (the batch's writes may
//! be lost or torn).
#![allow(clippy::disallowed_methods)] // tests use files freely

use empereur::ops::autoplay::autoplay;
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::ops::verify::verify_game;
use empereur::store::{self, GameDir, checkpoint, durable, fault, history};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const NOW: &str = "2026-01-05T10:00:00Z";

/// One test at a time: the fsync counters are the process's.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn game(root: &Path) -> GameDir {
    let players = store::players::parse("players.toml", DEMO_PLAYERS).unwrap();
    let dir = root.join("game");
    create_from(
        &NewOptions {
            dir: dir.clone(),
            scenario: "1805".into(),
            players: PathBuf::new(),
            options: vec![],
            id: Some("demo".into()),
            house_seating: true,
        },
        players,
    )
    .unwrap();
    GameDir::new(dir)
}

/// Every file of the game but the lock and the spares (`store::spare`:
/// their bytes mean nothing, and a checkpoint does not keep them), by
/// path, with its bytes.
fn snapshot(dir: &GameDir) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, d: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            // The spares' bytes mean nothing; the public pages a rollback
            // leaves (`public-pages`, appended by each resolution, and
            // their maps in `public-maps/`, each file named by its page's
            // key) are each keyed by the bytes of its entry, so a page of
            // an entry rolled back is never shown (tests/it/site.rs).
            if p.file_name()
                .is_some_and(|n| n == ".spare" || n == "public-pages" || n == "public-maps")
            {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.file_name().is_some_and(|n| n != ".lock") {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&dir.root, &dir.root, &mut out);
    out
}

/// The marker a batch left, rewritten as if taken in an earlier boot.
fn as_if_the_machine_restarted(dir: &GameDir) {
    let m = checkpoint::dir_of(dir).join("marker.toml");
    let text = std::fs::read_to_string(&m).expect("an unfinished batch leaves its marker");
    let mut marker: checkpoint::Marker = toml::from_str(&text).unwrap();
    marker.boot = "an earlier boot".into();
    std::fs::write(&m, toml::to_string(&marker).unwrap()).unwrap();
}

#[test]
fn a_batch_cut_by_a_restart_goes_back_to_the_checkpoint() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    autoplay(&dir, 2, 1, Some(NOW)).unwrap();
    let before = snapshot(&dir);
    assert!(
        !checkpoint::dir_of(&dir).exists(),
        "a finished batch leaves no checkpoint"
    );

    // The batch dies after some resolutions, mid-way through another.
    fault::arm(40);
    assert!(autoplay(&dir, 6, 2, Some(NOW)).is_err());
    fault::disarm();
    assert!(
        history::read_head(&dir).unwrap().entries > 2,
        "the batch committed phases"
    );
    // The machine went down: the batch's last writes are torn or lost.
    as_if_the_machine_restarted(&dir);
    std::fs::write(dir.state(), b"").unwrap();
    let _ = std::fs::remove_file(dir.phase().join("seed"));

    let lock = dir.lock().unwrap();
    drop(lock);
    let mut after = snapshot(&dir);
    let journal = String::from_utf8(after.remove("journal.log").unwrap()).unwrap();
    let mut want = before.clone();
    let old_journal = String::from_utf8(want.remove("journal.log").unwrap()).unwrap();
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "the same files as before the batch"
    );
    for (k, v) in &want {
        assert!(after[k] == *v, "{k} differs from the checkpoint");
    }
    assert!(journal.starts_with(&old_journal), "journal lines before the batch kept");
    let added: Vec<&str> = journal[old_journal.len()..].lines().collect();
    assert_eq!(added.len(), 1, "the batch's lines gone, one saying so: {added:?}");
    assert!(added[0].contains("rolled back to history entry 2"), "{}", added[0]);

    // The game plays on and verifies.
    let s = autoplay(&dir, 2, 3, Some(NOW)).unwrap();
    assert_eq!(s.resolved, 2);
    assert_eq!(history::read_head(&dir).unwrap().entries, 4);
    assert!(verify_game(&dir, &Default::default()).unwrap().ok());
}

#[test]
fn a_batch_cut_by_a_crash_keeps_what_it_committed() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let base = game(tmp.path());
    // The write points of an uninterrupted batch of three phases.
    let reference = tmp.path().join("reference");
    crate::players_common::copy_tree(&base.root, &reference);
    fault::arm(u32::MAX);
    autoplay(&GameDir::new(&reference), 3, 1, Some(NOW)).unwrap();
    let points = fault::disarm();
    // About nine a phase (state, head, seed, commitment, the entry, the
    // orders lock's mail...); the generated orders are not files.
    assert!(points > 20, "only {points} write points");

    for n in (0..points).step_by((points / 12).max(1) as usize) {
        let d = tmp.path().join(format!("crash-{n}"));
        crate::players_common::copy_tree(&base.root, &d);
        let dir = GameDir::new(&d);
        fault::arm(n);
        let first = autoplay(&dir, 3, 1, Some(NOW));
        fault::disarm();
        assert!(first.is_err(), "write {n} of {points} fails");
        let committed = history::read_head(&dir).unwrap().entries;
        // The next command keeps what the dead batch committed and
        // finishes a resolution cut after its commit point.
        let s = autoplay(&dir, 3, 1, Some(NOW)).unwrap();
        assert!(!checkpoint::dir_of(&dir).exists());
        let entries = history::read_head(&dir).unwrap().entries;
        // A resolution cut after its commit point is finished by the
        // second batch and counted there too.
        assert!(
            entries <= committed + s.resolved && entries + 1 >= committed + s.resolved,
            "crash at write {n}: {committed} committed, then {} resolved, {entries} entries",
            s.resolved
        );
        let r = verify_game(&dir, &Default::default()).unwrap();
        assert!(r.ok(), "crash at write {n}: {:?}", r.problems);
        std::fs::remove_dir_all(&d).unwrap();
    }
}

#[test]
fn a_batch_shares_its_fsync_passes() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let before = durable::stats();
    let s = autoplay(&dir, 8, 1, Some(NOW)).unwrap();
    let barriers = durable::stats().barriers - before.barriers;
    assert_eq!(s.resolved, 8);
    // Without the batch each resolution runs four or more barriers.
    assert!(barriers < 16, "{barriers} barriers for 8 phases");
}

#[test]
fn generated_orders_are_not_files_but_the_history_keeps_and_replays_them() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    // A file created or removed in phase/orders/ would move its time.
    let orders = dir.phase_orders();
    let long_ago = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::open(&orders).unwrap().set_modified(long_ago).unwrap();
    let s = autoplay(&dir, 3, 1, Some(NOW)).unwrap();
    assert_eq!(s.resolved, 3);
    assert!(s.generated_orders > 0);
    assert_eq!(
        std::fs::metadata(&orders).unwrap().modified().unwrap(),
        long_ago,
        "autoplay wrote or removed a file in phase/orders/"
    );
    // Each entry keeps every power's generated orders, written by autoplay.
    for name in history::list(&dir).unwrap().values() {
        let kept = history::entry_dir(&dir, name).join("orders");
        let files: Vec<_> = std::fs::read_dir(&kept).unwrap().map(|e| e.unwrap().path()).collect();
        assert!(!files.is_empty(), "{name} keeps no orders");
        for f in files {
            let bytes = std::fs::read_to_string(&f).unwrap();
            let sub: store::submission::Submission = toml::from_str(&bytes).unwrap();
            assert_eq!(sub.by, "autoplay");
            assert_eq!(store::submission::to_text(&sub).unwrap(), bytes, "{}", f.display());
        }
    }
    let opts = empereur::ops::verify::VerifyOptions {
        replay: true,
        entries: vec![],
    };
    let r = verify_game(&dir, &opts).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
}

#[test]
fn a_given_submission_counts_as_stored_but_a_stored_one_wins() {
    use empereur::ops::resolve::{Given, ResolveOptions, Resolved, resolve_game_locked_given};
    use empereur::store::submission::{self, Submission};
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let state = dir.load_state().unwrap();
    let scenario = dir.load_scenario(&dir.load_config().unwrap()).unwrap();
    let roles = empereur::rules::roles(&scenario, &state);
    let mut powers: Vec<_> = roles.must.iter().chain(roles.may.iter()).copied().collect();
    powers.sort();
    powers.dedup();
    assert!(powers.len() >= 2, "{powers:?}");
    let sub = |p, by: &str| Submission {
        power: p,
        phase: state.phase,
        by: by.into(),
        received: NOW.into(),
        entropy: None,
        passed: false,
        orders: empereur::ops::autoplay::generate(&scenario, &state, p, 5),
    };
    let stored = submission::save(&dir, &sub(powers[0], "moderator")).unwrap();
    let given: Given = powers.iter().map(|p| (*p, sub(*p, "autoplay"))).collect();
    let lock = dir.lock().unwrap();
    let opts = ResolveOptions {
        now: Some(NOW.into()),
        ..Default::default()
    };
    let Resolved::Done(done) = resolve_game_locked_given(&dir, &opts, given.clone()).unwrap() else {
        panic!("refused")
    };
    drop(lock);
    let kept = history::entry_dir(&dir, &done.entry).join("orders");
    for p in &powers {
        let bytes = std::fs::read(kept.join(format!("{}.toml", p.id()))).unwrap();
        if *p == powers[0] {
            assert_eq!(
                submission::receipt_of(&bytes),
                stored,
                "the stored submission of {p:?} is kept"
            );
        } else {
            assert_eq!(bytes, submission::to_text(&given[p]).unwrap().into_bytes(), "{p:?}");
        }
    }
    let lock_file = std::fs::read_to_string(history::entry_dir(&dir, &done.entry).join("lock.toml")).unwrap();
    assert!(lock_file.contains(&stored), "the lock names the stored receipt");
    assert!(std::fs::read_dir(dir.phase_orders()).unwrap().next().is_none());
    let opts = empereur::ops::verify::VerifyOptions {
        replay: true,
        entries: vec![],
    };
    let r = verify_game(&dir, &opts).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
}

/// What a long run told its progress (`cli` draws it as a bar).
#[derive(Default)]
struct Told {
    what: String,
    len: u64,
    steps: u64,
    finished: bool,
}

impl empereur::ops::progress::Progress for Told {
    fn start(&mut self, len: u64, what: &str) {
        (self.len, self.what) = (len, what.to_string());
    }
    fn step(&mut self) {
        self.steps += 1;
    }
    fn finish(&mut self) {
        self.finished = true;
    }
}

#[test]
fn autoplay_and_verify_replay_tell_their_progress_a_step_at_a_time() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let mut told = Told::default();
    empereur::ops::autoplay::autoplay_shown(&dir, 2, 1, Some(NOW), &mut told).unwrap();
    assert_eq!(
        (told.what.as_str(), told.len, told.steps, told.finished),
        ("autoplay", 2, 2, true)
    );
    let entries = u64::from(history::read_head(&dir).unwrap().entries);
    let mut told = Told::default();
    let replay = empereur::ops::verify::VerifyOptions {
        replay: true,
        ..Default::default()
    };
    let r = empereur::ops::verify::verify_game_shown(&dir, &replay, empereur::rules::resolve, &mut told).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!(
        (told.what.as_str(), told.len, told.steps, told.finished),
        ("verify --replay", entries, entries, true)
    );
}

/// The inode of every file and directory of the game (what a phase of
/// autoplay would free is missing from the next phase's set).
#[cfg(unix)]
fn inodes(root: &Path) -> BTreeMap<u64, String> {
    use std::os::unix::fs::MetadataExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            out.insert(m.ino(), p.strip_prefix(root).unwrap().display().to_string());
            if m.is_dir() {
                stack.push(p);
            }
        }
    }
    out
}

/// At the start of each phase, the inodes of the game.
#[cfg(unix)]
struct Inodes {
    root: PathBuf,
    at_each_phase: Vec<BTreeMap<u64, String>>,
}

#[cfg(unix)]
impl empereur::ops::progress::Progress for Inodes {
    fn step(&mut self) {
        self.at_each_phase.push(inodes(&self.root));
    }
}

/// On ext4 without a journal every creation skips the inodes freed in
/// its block group in the last minute (`store::spare`): a phase replaces
/// `state.toml`, `history/head.toml`, `phase/seed` and
/// `phase/commitment` and drops `phase/next-seed` without freeing any.
#[cfg(unix)]
#[test]
fn a_phase_of_autoplay_frees_no_inode() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let mut seen = Inodes {
        root: dir.root.clone(),
        at_each_phase: Vec::new(),
    };
    empereur::ops::autoplay::autoplay_shown(&dir, 6, 1, Some(NOW), &mut seen).unwrap();
    assert_eq!(seen.at_each_phase.len(), 6);
    for (k, pair) in seen.at_each_phase.windows(2).enumerate() {
        let freed: Vec<&String> = pair[0]
            .iter()
            .filter(|(ino, _)| !pair[1].contains_key(ino))
            .map(|(_, path)| path)
            .collect();
        assert!(freed.is_empty(), "phase {} freed the inodes of {freed:?}", k + 1);
    }
    // What lives only within a phase (`phase/next-seed`) is not in those
    // sets: the files a resolution replaces and their spares are one
    // fixed set of inodes, one spare each, once each was replaced while
    // it existed (the head is first written by the first resolution).
    let replaced = |set: &BTreeMap<u64, String>| -> std::collections::BTreeSet<u64> {
        set.iter()
            .filter(|(_, p)| {
                p.starts_with(".spare/") && !p.ends_with("/phase") && !p.ends_with("/history")
                    || ["state.toml", "history/head.toml", "phase/seed", "phase/commitment"].contains(&p.as_str())
            })
            .map(|(ino, _)| *ino)
            .collect()
    };
    let fixed = replaced(&seen.at_each_phase[2]);
    assert_eq!(fixed.len(), 4 + 5, "four live files, five spares (with next-seed's)");
    for (k, set) in seen.at_each_phase.iter().enumerate().skip(3) {
        assert_eq!(replaced(set), fixed, "phase {}", k + 1);
    }
}

/// A crash while a spare is written leaves it with any part of the new
/// bytes: nothing reads it (loading, verify, export), and the next
/// replacement writes it whole.
#[test]
fn spares_left_half_written_are_never_read() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    autoplay(&dir, 2, 1, Some(NOW)).unwrap();
    let torn = "torn = \"a spare left half-written by a crash";
    let mut spares = 0;
    let mut stack = vec![store::spare::dir_of(&dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                std::fs::write(&p, torn).unwrap();
                spares += 1;
            }
        }
    }
    // state, head, seed, commitment and next-seed.
    assert_eq!(spares, 5, "one spare for each file a resolution replaces");
    let opts = empereur::ops::verify::VerifyOptions {
        replay: true,
        entries: vec![],
    };
    let r = verify_game(&dir, &opts).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    dir.load_state().unwrap();
    let tar = tmp.path().join("history.tar");
    empereur::ops::export::export(&dir, &tar).unwrap();
    let exported = std::fs::read(&tar).unwrap();
    assert!(
        !exported.windows(torn.len()).any(|w| w == torn.as_bytes()),
        "a spare was exported"
    );
    let s = autoplay(&dir, 3, 2, Some(NOW)).unwrap();
    assert_eq!(s.resolved, 3);
    for (path, bytes) in snapshot(&dir) {
        assert!(
            !bytes.windows(torn.len()).any(|w| w == torn.as_bytes()),
            "{path} holds a torn spare's bytes"
        );
    }
    let r = verify_game(&dir, &opts).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
}
