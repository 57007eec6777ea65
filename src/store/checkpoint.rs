//! A checkpoint behind a batch of commits made durable together
//! (`autoplay`): many resolutions share a few fsync passes instead of
//! several each (see [`durable::defer`]), and a power loss in the middle
//! of the batch rolls the game back to where the batch began.
//!
//! Before the batch, the files a resolution rewrites (`state.toml`,
//! `history/head.toml`, everything under `phase/`; not their spares under
//! `.spare/`, whose bytes mean nothing: `store::spare`) are copied into
//! `.checkpoint/`, with `marker.toml` saying how far the history, the
//! journal and the outbox went and which boot of the machine took it; all
//! of it is durable before the batch starts, the marker last. When the
//! batch ends, its writes are made durable (on Linux one `syncfs` of the
//! game's file system instead of an fsync per file), then the marker goes.
//!
//! A marker found by the next command that takes the game lock
//! ([`recover`]) means the batch did not end:
//! - same boot: the process died, but every write it made is in the
//!   kernel's cache, in order, so the game is as after its last commit
//!   point (each resolution still has its own, as without the batch);
//!   they are made durable and the batch's work is kept;
//! - another boot (or no way to tell): the machine went down and any of
//!   the batch's writes may be lost or torn, so the game is put back to
//!   the checkpoint: the copied files restored, history entries, outbox
//!   messages and journal lines added since removed.
//!
//! Nothing the batch did was promised to anyone before it ended (it
//! sends no mail and prints its summary after the marker is gone), so a
//! rollback loses nothing that was reported.
#![allow(clippy::disallowed_methods)] // adapter: this module owns file I/O

use super::{GameDir, atomic_write, commit_write, durable, history, sync_dir};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// `.checkpoint/` in the game directory.
pub fn dir_of(dir: &GameDir) -> PathBuf {
    dir.root.join(".checkpoint")
}

fn marker_path(dir: &GameDir) -> PathBuf {
    dir_of(dir).join("marker.toml")
}

fn copies(dir: &GameDir) -> PathBuf {
    dir_of(dir).join("files")
}

/// What the batch started from.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Marker {
    /// The machine's boot id when the checkpoint was taken (Linux);
    /// empty when unknown, which always rolls back.
    pub boot: String,
    /// History entries committed before the batch.
    pub entries: u32,
    /// Bytes of `journal.log` before the batch.
    pub journal_len: u64,
    /// Files in `mail/outbox/` before the batch.
    pub outbox: BTreeSet<String>,
}

/// The current boot of this machine, if the system says (empty when
/// not): whether the page cache a crashed process wrote to is still the
/// one on the disk's way.
pub fn boot_id() -> String {
    fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The files a resolution rewrites in place, relative to the game root.
fn rewritten(dir: &GameDir) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for f in ["state.toml", "history/head.toml"] {
        if dir.root.join(f).is_file() {
            out.push(f.to_string());
        }
    }
    walk(&dir.root, Path::new("phase"), &mut out)?;
    Ok(out)
}

fn walk(root: &Path, rel: &Path, out: &mut Vec<String>) -> Result<()> {
    let d = root.join(rel);
    if !d.is_dir() {
        return Ok(());
    }
    for e in fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))? {
        let e = e?;
        let r = rel.join(e.file_name());
        if e.file_type()?.is_dir() {
            walk(root, &r, out)?;
        } else {
            out.push(r.to_string_lossy().into_owned());
        }
    }
    Ok(())
}

fn outbox_files(dir: &GameDir) -> Result<BTreeSet<String>> {
    let d = dir.outbox();
    let mut out = BTreeSet::new();
    if d.is_dir() {
        for e in fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))? {
            out.insert(e?.file_name().to_string_lossy().into_owned());
        }
    }
    Ok(out)
}

/// A batch in progress; [`Checkpoint::commit`] ends it. Dropped without
/// a commit (the batch failed), it stops deferring and leaves the marker
/// for the next holder of the lock, as a killed process would.
#[must_use = "the batch ends with commit"]
pub struct Checkpoint {
    dir: GameDir,
    defer: Option<durable::Defer>,
}

/// Take a checkpoint of `dir` and defer barriers until the batch ends.
/// Call inside a [`durable::Group`], with the game lock held.
pub fn begin(dir: &GameDir) -> Result<Checkpoint> {
    // Everything before the batch is durable, so the checkpoint is a
    // state the game really was in.
    durable::barrier()?;
    let cp = dir_of(dir);
    if cp.exists() {
        fs::remove_dir_all(&cp).with_context(|| format!("cannot remove {}", cp.display()))?;
    }
    for rel in rewritten(dir)? {
        let bytes = fs::read(dir.root.join(&rel)).with_context(|| format!("cannot read {rel}"))?;
        atomic_write(&copies(dir).join(&rel), &bytes)?;
    }
    let marker = Marker {
        boot: boot_id(),
        entries: history::read_head(dir)?.entries,
        journal_len: fs::metadata(dir.journal()).map(|m| m.len()).unwrap_or(0),
        outbox: outbox_files(dir)?,
    };
    let text = toml::to_string(&marker).context("serialising the checkpoint marker")?;
    // The copies are durable before the marker that makes them count.
    commit_write(&marker_path(dir), text.as_bytes())?;
    Ok(Checkpoint {
        dir: dir.clone(),
        defer: Some(durable::defer()),
    })
}

impl Checkpoint {
    /// End the batch: its writes durable, then the checkpoint removed.
    pub fn commit(mut self) -> Result<()> {
        drop(self.defer.take());
        if durable::take_deferred() {
            sync_all(&self.dir)?;
        }
        durable::barrier()?;
        remove(&self.dir)
    }
}

impl Drop for Checkpoint {
    fn drop(&mut self) {
        // Barriers no longer wait; the marker stays unless committed.
        drop(self.defer.take());
    }
}

/// Remove the checkpoint, marker first (its removal ends the batch).
fn remove(dir: &GameDir) -> Result<()> {
    let m = marker_path(dir);
    if m.exists() {
        fs::remove_file(&m).with_context(|| format!("cannot remove {}", m.display()))?;
        sync_dir(&dir_of(dir));
        durable::barrier()?;
    }
    let cp = dir_of(dir);
    if cp.exists() {
        fs::remove_dir_all(&cp).with_context(|| format!("cannot remove {}", cp.display()))?;
        sync_dir(&dir.root);
    }
    Ok(())
}

/// What [`recover`] did with an unfinished batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recovered {
    /// Same boot: the batch's writes were whole and are now durable.
    Kept,
    /// The machine restarted: the game is back at the checkpoint.
    RolledBack { entries: u32 },
}

/// Finish what an unfinished batch left (call with the game lock held,
/// before reading the game).
pub fn recover(dir: &GameDir) -> Result<Option<Recovered>> {
    let cp = dir_of(dir);
    if !cp.exists() {
        return Ok(None);
    }
    let m = marker_path(dir);
    if !m.exists() {
        // The batch ended; only the copies were left.
        fs::remove_dir_all(&cp).with_context(|| format!("cannot remove {}", cp.display()))?;
        return Ok(None);
    }
    let text = fs::read_to_string(&m).with_context(|| format!("cannot read {}", m.display()))?;
    let marker: Marker =
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {}", m.display(), e.message().trim()))?;
    if !marker.boot.is_empty() && marker.boot == boot_id() {
        sync_all(dir)?;
        remove(dir)?;
        return Ok(Some(Recovered::Kept));
    }
    roll_back(dir, &marker)?;
    remove(dir)?;
    Ok(Some(Recovered::RolledBack {
        entries: marker.entries,
    }))
}

/// Make the whole game durable: the end of a batch whose writes were left
/// to it, or after a process died in one (Linux: `syncfs`; elsewhere each
/// write was fsynced by a barrier and the directory is enough).
fn sync_all(dir: &GameDir) -> Result<()> {
    #[cfg(target_os = "linux")]
    durable::sync_filesystem(&dir.root)?;
    #[cfg(not(target_os = "linux"))]
    fs::File::open(&dir.root)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot sync {}", dir.root.display()))?;
    Ok(())
}

fn roll_back(dir: &GameDir, marker: &Marker) -> Result<()> {
    let saved = {
        let mut v = Vec::new();
        walk(&copies(dir), Path::new(""), &mut v)?;
        v
    };
    // The head first: entries beyond it are then leftovers.
    let head = dir.root.join("history/head.toml");
    if saved.iter().any(|r| r == "history/head.toml") {
        let bytes = fs::read(copies(dir).join("history/head.toml"))?;
        atomic_write(&head, &bytes)?;
    } else if head.exists() {
        fs::remove_file(&head).with_context(|| format!("cannot remove {}", head.display()))?;
        sync_dir(&dir.history());
    }
    history::discard_uncommitted(dir)?;
    // `phase/` exactly as it was.
    let mut now = Vec::new();
    walk(&dir.root, Path::new("phase"), &mut now)?;
    let keep: BTreeSet<&String> = saved.iter().collect();
    for rel in now.iter().filter(|r| !keep.contains(r)) {
        let p = dir.root.join(rel);
        fs::remove_file(&p).with_context(|| format!("cannot remove {}", p.display()))?;
        if let Some(parent) = p.parent() {
            sync_dir(parent);
        }
    }
    for rel in saved.iter().filter(|r| r.as_str() != "history/head.toml") {
        let bytes = fs::read(copies(dir).join(rel))?;
        atomic_write(&dir.root.join(rel), &bytes)?;
    }
    for name in outbox_files(dir)?.difference(&marker.outbox) {
        let p = dir.outbox().join(name);
        fs::remove_file(&p).with_context(|| format!("cannot remove {}", p.display()))?;
        sync_dir(&dir.outbox());
    }
    let journal = dir.journal();
    if journal.exists() {
        let f = fs::OpenOptions::new()
            .write(true)
            .open(&journal)
            .with_context(|| format!("cannot open {}", journal.display()))?;
        f.set_len(marker.journal_len)
            .with_context(|| format!("cannot truncate {}", journal.display()))?;
        durable::file_written(&journal, &f)?;
    }
    let when = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    dir.journal_line(
        &when,
        &format!(
            "checkpoint: a batch interrupted by a restart of the machine was rolled back to history entry {}",
            marker.entries
        ),
    )?;
    durable::barrier()
}
