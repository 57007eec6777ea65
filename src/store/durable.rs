//! Group commit: when a command writes many files, it makes them durable
//! together instead of one fsync (and one directory fsync) per file.
//!
//! Outside a [`Group`], every durable write is fsynced at once, as
//! before. Inside one (`ingest`, `run`, `resolve`, `autoplay` open one),
//! a write still goes through a temporary file and a rename, so a process
//! that dies sees exactly what it would have seen with per-file fsyncs;
//! only the fsyncs wait. [`barrier`] then fsyncs every file and every
//! directory written since the last barrier in one parallel pass (the
//! kernel folds concurrent fsyncs into few journal commits), and every
//! commit point calls it first:
//!
//! - the journal append and the Maildir `new/` -> `cur/` moves (a message
//!   is marked processed only after its archive copy, submission and
//!   reply are durable);
//! - `history/head.toml` (the resolution's commit point) and the removal
//!   of the staged seed that ends a resolution;
//! - marking a queued message as being sent, before it leaves.
//!
//! So a power loss before a commit point loses only work that the next
//! run redoes (the message is still unprocessed in `new/`, the resolution
//! not committed), and never anything a commit point already promised.
//! A replaced file (a submission sent again) relies on the rename not
//! reaching the disk before its data, which ext4 (`auto_da_alloc`, the
//! default), btrfs and others ensure for a rename over an existing file;
//! the message that replaced it is unprocessed until the barrier, so the
//! next run writes it again. The files a resolution replaces are instead
//! rewritten in a spare and exchanged with the live file
//! (`store::spare`), which no file system orders after the spare's data:
//! there the barrier runs before the exchange.
//!
//! A [`Defer`] (see `store::checkpoint`) goes one step further for a
//! batch of commits that promises nothing to anyone until it ends
//! (`autoplay`): inside it, a barrier waits too, so many resolutions
//! share a few fsync passes. What a process crash leaves is the same
//! (every write and rename is done in order, only the fsyncs wait); a
//! power loss is answered by the checkpoint taken before the batch.
//!
//! [`stats`] counts fsyncs and barriers for the benchmarks.

use anyhow::{Context, Result};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Open files held for the next barrier before an early one: far below
/// any usual open-file limit.
const MAX_PENDING: usize = 512;
/// Most threads of a barrier's fsync pass: fsyncs issued together are
/// folded by the filesystem into few journal commits, where one thread
/// would wait for a commit per file.
const THREADS: usize = 64;

static FSYNCS: AtomicU64 = AtomicU64::new(0);
static BARRIERS: AtomicU64 = AtomicU64::new(0);

#[derive(Default)]
struct Pending {
    depth: u32,
    /// Open [`Defer`] guards: barriers wait while any is held.
    deferred: u32,
    /// Something was written while deferred and is left for
    /// [`take_deferred`] (Linux: the batch ends with one `syncfs`).
    deferred_writes: bool,
    /// Files written since the last barrier, by handle: a later rename of
    /// the file (or of its directory) cannot make the barrier miss it.
    files: Vec<(PathBuf, File)>,
    dirs: BTreeSet<PathBuf>,
    dir_handles: Vec<(PathBuf, File)>,
    /// From [`SYNCFS_FROM`] pending items on (Linux), the barrier makes
    /// each file system holding them durable whole (`syncfs`): then one
    /// handle per file system is kept instead of one per item, and a
    /// batch of any size needs no early barrier.
    whole: Vec<(u64, PathBuf, File)>,
}

impl Pending {
    /// Whether `f` is on a file system the next barrier syncs whole.
    fn covers(&self, f: &File) -> bool {
        !self.whole.is_empty() && device(f).is_some_and(|d| self.whole.iter().any(|(w, _, _)| *w == d))
    }
    /// Keep `handle` for the next barrier: in whole mode only if its
    /// file system is not covered yet; otherwise by itself, switching to
    /// whole mode once there are [`SYNCFS_FROM`] items whose file systems
    /// are all known. Returns whether the set is full (an early barrier).
    fn keep(&mut self, path: &Path, handle: File, is_file: bool) -> bool {
        if !self.whole.is_empty()
            && let Some(d) = device(&handle)
        {
            if !self.whole.iter().any(|(w, _, _)| *w == d) {
                self.whole.push((d, path.to_path_buf(), handle));
            }
            return false;
        }
        if is_file {
            self.files.push((path.to_path_buf(), handle));
        } else {
            self.dir_handles.push((path.to_path_buf(), handle));
        }
        let n = self.files.len() + self.dir_handles.len();
        if cfg!(target_os = "linux") && n >= SYNCFS_FROM {
            let all: Option<Vec<u64>> = self
                .files
                .iter()
                .chain(&self.dir_handles)
                .map(|(_, f)| device(f))
                .collect();
            if let Some(devs) = all {
                let items = std::mem::take(&mut self.files)
                    .into_iter()
                    .chain(std::mem::take(&mut self.dir_handles));
                for (d, (p, f)) in devs.into_iter().zip(items) {
                    if !self.whole.iter().any(|(w, _, _)| *w == d) {
                        self.whole.push((d, p, f));
                    }
                }
                return false;
            }
        }
        n >= MAX_PENDING
    }
}

thread_local! {
    static PENDING: RefCell<Pending> = RefCell::default();
}

/// Counters since the process started: fsync calls (files and
/// directories) and barriers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub fsyncs: u64,
    pub barriers: u64,
}

pub fn stats() -> Stats {
    Stats {
        fsyncs: FSYNCS.load(Ordering::Relaxed),
        barriers: BARRIERS.load(Ordering::Relaxed),
    }
}

/// A group of writes made durable together; nests (the outermost one
/// ends it). Dropping it runs a last barrier, best effort: callers that
/// must know call [`Group::commit`].
#[must_use = "the group ends when this is dropped"]
pub struct Group {
    // Thread-bound: the pending writes live in a thread-local.
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Start (or join) a group on this thread.
pub fn group() -> Group {
    PENDING.with(|p| p.borrow_mut().depth += 1);
    Group {
        _not_send: std::marker::PhantomData,
    }
}

impl Group {
    /// End the group, making its writes durable (an inner group inside a
    /// [`Defer`] leaves them to the outermost).
    pub fn commit(self) -> Result<()> {
        let outermost = PENDING.with(|p| p.borrow().depth == 1);
        if outermost { flush() } else { barrier() }
        // Drop then leaves the group with nothing pending.
    }
}

impl Group {
    /// End the group, leaving what it wrote since its last barrier to
    /// the group around it (its next barrier, or its end) when there is
    /// one; the outermost makes it durable as [`Group::commit`] does.
    /// For a caller whose end is no commit point: `run --games` ends
    /// each game's run this way, so the writes after a game's last
    /// barrier share one pass with the next game's (what a crash in
    /// between leaves is what it would leave before that last pass).
    pub fn finish(self) -> Result<()> {
        let outermost = PENDING.with(|p| p.borrow().depth == 1);
        if outermost { flush() } else { Ok(()) }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let outermost = PENDING.with(|p| {
            let mut p = p.borrow_mut();
            p.depth = p.depth.saturating_sub(1);
            p.depth == 0
        });
        if outermost {
            // Even deferred: nothing may stay pending outside a group.
            let _ = flush();
        }
    }
}

/// Barriers wait while this is held (inside a [`Group`]); a full set of
/// pending writes still runs one. Only a batch with a checkpoint behind
/// it may defer (see `store::checkpoint`).
#[must_use = "barriers wait only while this is held"]
pub struct Defer {
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Defer barriers on this thread until the guard is dropped.
pub fn defer() -> Defer {
    PENDING.with(|p| p.borrow_mut().deferred += 1);
    Defer {
        _not_send: std::marker::PhantomData,
    }
}

impl Drop for Defer {
    fn drop(&mut self) {
        PENDING.with(|p| {
            let mut p = p.borrow_mut();
            p.deferred = p.deferred.saturating_sub(1);
        });
    }
}

/// Whether barriers on this thread wait (a [`Defer`] is held).
pub fn deferred() -> bool {
    PENDING.with(|p| p.borrow().deferred > 0)
}

/// Files written on this thread and kept for the next barrier (tests of
/// the callers that must run a barrier before a step).
#[cfg(test)]
pub(crate) fn pending_files() -> usize {
    PENDING.with(|p| p.borrow().files.len())
}

/// Whether writes on this thread wait for a barrier.
pub fn in_group() -> bool {
    PENDING.with(|p| p.borrow().depth > 0)
}

fn fsync(f: &File) -> std::io::Result<()> {
    FSYNCS.fetch_add(1, Ordering::Relaxed);
    f.sync_all()
}

/// Whether a write now is left to the end of a deferred batch: on Linux
/// the batch ends with one `syncfs` of its file system, far cheaper than
/// an fsync per file; elsewhere each file is kept for a barrier.
fn left_to_batch() -> bool {
    cfg!(target_os = "linux")
        && PENDING.with(|p| {
            let mut p = p.borrow_mut();
            if p.deferred > 0 {
                p.deferred_writes = true;
            }
            p.deferred > 0
        })
}

/// Whether anything was written while deferred and left to the batch's
/// end (see [`left_to_batch`]); clears the mark. The batch then makes
/// its file system durable (`store::checkpoint`).
pub fn take_deferred() -> bool {
    PENDING.with(|p| std::mem::take(&mut p.borrow_mut().deferred_writes))
}

/// Make the whole file system holding `path` durable (`syncfs`): the
/// end of a deferred batch on Linux. Counted as one fsync and one barrier.
#[cfg(target_os = "linux")]
pub fn sync_filesystem(path: &Path) -> Result<()> {
    let f = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    FSYNCS.fetch_add(1, Ordering::Relaxed);
    BARRIERS.fetch_add(1, Ordering::Relaxed);
    rustix::fs::syncfs(&f).with_context(|| format!("cannot sync the file system of {}", path.display()))
}

/// `f` (at `path`) was written: fsync it now, or at the next barrier
/// inside a group.
pub fn file_written(path: &Path, f: &File) -> Result<()> {
    if !in_group() {
        return fsync(f).with_context(|| format!("cannot fsync {}", path.display()));
    }
    if left_to_batch() {
        return Ok(());
    }
    if PENDING.with(|p| p.borrow().covers(f)) {
        return Ok(());
    }
    let handle = f
        .try_clone()
        .with_context(|| format!("cannot keep {} for the group commit", path.display()))?;
    let full = PENDING.with(|p| p.borrow_mut().keep(path, handle, true));
    if full { flush() } else { Ok(()) }
}

/// An entry of `dir` was added, renamed or removed: fsync the directory
/// now, or once at the next barrier inside a group. Best effort, as not
/// every platform lets a directory be opened.
pub fn dir_changed(dir: &Path) {
    if !in_group() {
        if let Ok(d) = File::open(dir) {
            let _ = fsync(&d);
        }
        return;
    }
    if left_to_batch() {
        return;
    }
    let full = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        if p.dirs.contains(dir) {
            return false;
        }
        // By handle too: a staged history entry's directory is renamed
        // into place before the barrier.
        let Ok(d) = File::open(dir) else { return false };
        p.dirs.insert(dir.to_path_buf());
        if p.covers(&d) {
            return false;
        }
        p.keep(dir, d, false)
    });
    if full {
        let _ = flush();
    }
}

/// Make every write since the last barrier durable: the step before a
/// commit point. A no-op outside a group (each write was fsynced), and
/// deferred while a [`Defer`] is held.
pub fn barrier() -> Result<()> {
    if deferred() {
        return Ok(());
    }
    flush()
}

/// The barrier itself, deferred or not.
fn flush() -> Result<()> {
    let (files, dirs, whole) = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        p.dirs.clear();
        (
            std::mem::take(&mut p.files),
            std::mem::take(&mut p.dir_handles),
            std::mem::take(&mut p.whole),
        )
    });
    if files.is_empty() && dirs.is_empty() && whole.is_empty() {
        return Ok(());
    }
    BARRIERS.fetch_add(1, Ordering::Relaxed);
    if !whole.is_empty() {
        // Whole mode keeps nothing else (see `Pending::keep`).
        debug_assert!(files.is_empty() && dirs.is_empty());
        for (_, path, f) in &whole {
            FSYNCS.fetch_add(1, Ordering::Relaxed);
            syncfs(f).with_context(|| format!("cannot sync the file system of {}", path.display()))?;
        }
        return Ok(());
    }
    // Files and the directories naming them in one pass: all must be
    // durable before the commit point; their order does not matter.
    let items: Vec<(PathBuf, File, bool)> = files
        .into_iter()
        .map(|(p, f)| (p, f, true))
        .chain(dirs.into_iter().map(|(p, f)| (p, f, false)))
        .collect();
    if items.len() >= SYNCFS_FROM
        && let Some(r) = sync_filesystems(&items)
    {
        return r.map(|_| ());
    }
    sync_all_parallel(&items)
}

/// From this many pending items on, a barrier makes each file system
/// holding them durable with one `syncfs` (Linux) instead of an fsync
/// per item: on ext4 every fsync of a new file is a journal commit and a
/// cache flush of the device, where `syncfs` writes back all of them
/// and commits once. Below it, the fsyncs are fewer than the unrelated
/// dirty data a `syncfs` would also have to write.
const SYNCFS_FROM: usize = 32;

/// `syncfs` once per file system (device) holding `items`: a superset of
/// fsyncing each of them. Returns how many file systems were synced, or
/// `None` where that is not available (not Linux, or a handle whose
/// device cannot be read): the caller fsyncs each.
fn sync_filesystems(items: &[(PathBuf, File, bool)]) -> Option<Result<usize>> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let mut devices: Vec<(u64, &PathBuf, &File)> = Vec::new();
    for (path, f, _) in items {
        let dev = device(f)?;
        if !devices.iter().any(|(d, _, _)| *d == dev) {
            devices.push((dev, path, f));
        }
    }
    let n = devices.len();
    Some(
        devices
            .into_iter()
            .try_for_each(|(_, path, f)| {
                FSYNCS.fetch_add(1, Ordering::Relaxed);
                syncfs(f).with_context(|| format!("cannot sync the file system of {}", path.display()))
            })
            .map(|()| n),
    )
}

#[cfg(target_os = "linux")]
fn device(f: &File) -> Option<u64> {
    rustix::fs::fstat(f).ok().map(|st| st.st_dev)
}

#[cfg(not(target_os = "linux"))]
fn device(_: &File) -> Option<u64> {
    None
}

#[cfg(target_os = "linux")]
fn syncfs(f: &File) -> std::io::Result<()> {
    rustix::fs::syncfs(f).map_err(std::io::Error::from)
}

#[cfg(not(target_os = "linux"))]
fn syncfs(f: &File) -> std::io::Result<()> {
    f.sync_all()
}

/// fsync every item, `THREADS` at a time; an error on a file (`true`)
/// fails the barrier, one on a directory is ignored (best effort, as
/// [`dir_changed`]).
fn sync_all_parallel(items: &[(PathBuf, File, bool)]) -> Result<()> {
    let threads = items.len().min(THREADS);
    let results: Vec<Result<()>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                s.spawn(move || -> Result<()> {
                    for (path, f, strict) in items.iter().skip(k).step_by(threads) {
                        let r = fsync(f);
                        if *strict {
                            r.with_context(|| format!("cannot fsync {}", path.display()))?;
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("an fsync thread panicked")))
            })
            .collect()
    });
    results.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(p: &Path, text: &str) {
        let mut f = File::create(p).unwrap();
        f.write_all(text.as_bytes()).unwrap();
        file_written(p, &f).unwrap();
    }

    #[test]
    fn writes_in_a_group_wait_for_the_barrier_and_outside_are_synced_at_once() {
        let d = tempfile::tempdir().unwrap();
        let before = stats();
        write(&d.path().join("a"), "a");
        dir_changed(d.path());
        // Other tests run in parallel threads: the global counters only
        // grow, so compare lower bounds and use the thread's own state.
        assert!(stats().fsyncs >= before.fsyncs + 2);
        let g = group();
        for i in 0..5 {
            write(&d.path().join(format!("f{i}")), "x");
            dir_changed(d.path());
        }
        let pending = PENDING.with(|p| (p.borrow().files.len(), p.borrow().dir_handles.len()));
        assert_eq!(pending, (5, 1), "five files and their directory once");
        {
            let inner = group();
            write(&d.path().join("g"), "y");
            drop(inner);
            assert_eq!(
                PENDING.with(|p| p.borrow().files.len()),
                6,
                "an inner group does not end the outer"
            );
        }
        barrier().unwrap();
        assert_eq!(PENDING.with(|p| p.borrow().files.len()), 0);
        write(&d.path().join("h"), "z");
        g.commit().unwrap();
        assert!(!in_group());
        assert_eq!(PENDING.with(|p| p.borrow().files.len()), 0);
    }

    #[test]
    fn a_finished_inner_group_leaves_its_writes_to_the_outer_one() {
        let d = tempfile::tempdir().unwrap();
        let outer = group();
        let inner = group();
        write(&d.path().join("a"), "a");
        inner.finish().unwrap();
        assert_eq!(
            PENDING.with(|p| p.borrow().files.len()),
            1,
            "left for the outer group's next barrier"
        );
        let inner = group();
        write(&d.path().join("b"), "b");
        inner.commit().unwrap();
        assert_eq!(PENDING.with(|p| p.borrow().files.len()), 0, "a commit is a barrier");
        write(&d.path().join("c"), "c");
        outer.finish().unwrap();
        assert!(!in_group());
        assert_eq!(
            PENDING.with(|p| p.borrow().files.len()),
            0,
            "the outermost makes its writes durable"
        );
    }

    #[test]
    fn a_renamed_file_is_still_synced_by_its_handle() {
        let d = tempfile::tempdir().unwrap();
        let _g = group();
        let tmp = d.path().join(".tmp");
        std::fs::create_dir(&tmp).unwrap();
        write(&tmp.join("x"), "x");
        dir_changed(&tmp);
        std::fs::rename(&tmp, d.path().join("fin")).unwrap();
        barrier().unwrap();
    }

    #[test]
    fn deferred_writes_wait_for_the_batch_and_are_marked() {
        let d = tempfile::tempdir().unwrap();
        let g = group();
        take_deferred();
        {
            let _defer = defer();
            write(&d.path().join("a"), "a");
            dir_changed(d.path());
            // The commit point inside the batch does not sync.
            barrier().unwrap();
            if cfg!(target_os = "linux") {
                assert_eq!(
                    PENDING.with(|p| p.borrow().files.len()),
                    0,
                    "left to the batch's syncfs"
                );
                assert!(take_deferred(), "the batch knows it has writes to make durable");
                assert!(!take_deferred(), "taken once");
            } else {
                assert_eq!(PENDING.with(|p| p.borrow().files.len()), 1, "kept for the barrier");
            }
        }
        write(&d.path().join("b"), "b");
        assert!(
            PENDING.with(|p| p.borrow().files.len()) >= 1,
            "outside the batch, kept again"
        );
        assert!(!take_deferred());
        g.commit().unwrap();
    }

    #[test]
    fn a_large_barrier_syncs_each_file_system_once() {
        let d = tempfile::tempdir().unwrap();
        let items: Vec<(PathBuf, File, bool)> = (0..SYNCFS_FROM)
            .map(|i| {
                let p = d.path().join(format!("f{i}"));
                std::fs::write(&p, "x").unwrap();
                let f = File::open(&p).unwrap();
                (p, f, true)
            })
            .chain(std::iter::once((
                d.path().to_path_buf(),
                File::open(d.path()).unwrap(),
                false,
            )))
            .collect();
        let synced = sync_filesystems(&items).map(|r| r.unwrap());
        let expected = if cfg!(target_os = "linux") { Some(1) } else { None };
        assert_eq!(synced, expected, "one temp dir, one file system");
        // In a group, such a barrier leaves nothing pending.
        let _g = group();
        for i in 0..SYNCFS_FROM {
            write(&d.path().join(format!("g{i}")), "y");
        }
        barrier().unwrap();
        assert_eq!(PENDING.with(|p| p.borrow().files.len()), 0);
    }

    #[test]
    fn a_full_group_runs_an_early_barrier() {
        let d = tempfile::tempdir().unwrap();
        let _g = group();
        for i in 0..MAX_PENDING + 3 {
            write(&d.path().join(format!("f{i}")), "x");
        }
        let (files, whole) = PENDING.with(|p| (p.borrow().files.len(), p.borrow().whole.len()));
        if cfg!(target_os = "linux") {
            // Past SYNCFS_FROM files the barrier syncs the file system
            // whole: one handle kept, no early barrier however many.
            assert_eq!((files, whole), (0, 1));
        } else {
            assert_eq!((files, whole), (3, 0));
        }
    }

    #[test]
    fn past_the_syncfs_threshold_one_handle_per_file_system_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let _g = group();
        let before = stats();
        for i in 0..SYNCFS_FROM + 10 {
            write(&d.path().join(format!("f{i}")), "x");
            dir_changed(d.path());
        }
        let kept = PENDING.with(|p| {
            let p = p.borrow();
            (p.files.len() + p.dir_handles.len(), p.whole.len())
        });
        if !cfg!(target_os = "linux") {
            return;
        }
        assert_eq!(kept, (0, 1), "one file system, one handle");
        barrier().unwrap();
        assert!(stats().barriers > before.barriers);
        assert_eq!(PENDING.with(|p| p.borrow().whole.len()), 0, "the barrier took it");
        // After the barrier, writes are kept one by one again.
        write(&d.path().join("again"), "y");
        assert_eq!(PENDING.with(|p| p.borrow().files.len()), 1);
    }
}
