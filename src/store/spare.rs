//! Files that every resolution replaces, replaced without freeing an
//! inode: `state.toml`, `history/head.toml`, `phase/seed`,
//! `phase/commitment` and `phase/next-seed` each keep a spare file at the
//! same relative path under `.spare/` (so the spare of `phase/seed` is
//! `.spare/phase/seed`). A replacement writes the new bytes into the
//! spare, then exchanges the two names in one step (Linux
//! `renameat2(RENAME_EXCHANGE)`): the live name now holds the new bytes,
//! and the old inode, with the old bytes, is the next spare.
//!
//! Why: a replacement by rename frees the old inode, and on ext4 without
//! a journal every creation in a block group skips each inode freed there
//! in the last 60 seconds (300 while its inode table block is not yet
//! written back; `recently_deleted` in the kernel). A campaign of
//! `autoplay` freed five inodes a phase and every file it created after
//! scanned past them: the cost of a creation grew through the campaign.
//!
//! A spare's bytes mean nothing: nothing reads `.spare/` (not `verify`,
//! `export-history`, the loading of the game, nor a checkpoint, which
//! copies and restores only the live files), and every replacement
//! writes the spare over from its start and cuts it to the new length. Spares are 0600, as the files
//! they replace; the spare of `phase/next-seed`, set aside when a
//! resolution ends, holds the open phase's seed as `phase/seed` does
//! (a preview's copy of the game leaves out every file named `seed` or
//! `next-seed`, these too).
//!
//! What a crash leaves:
//! - a process that dies while a spare is written, or after it and before
//!   the exchange: the live file is untouched and the spare holds any
//!   part of the new bytes, or of the old beyond them (the next
//!   replacement writes it whole);
//! - after the exchange: the live file holds the new bytes, as after a
//!   rename, and the spare the old ones;
//! - a power loss: an exchange must not reach the disk before the data it
//!   puts under the live name (a rename over a file gets that from ext4's
//!   `auto_da_alloc`; an exchange does not), so the spares are durable
//!   before any exchange: outside a group each was fsynced as it was
//!   written, inside one [`replace_all`] runs the group's barrier first
//!   (one pass for the files it replaces together). In a deferred batch
//!   (`autoplay`) that barrier waits with the others and the checkpoint
//!   answers a power loss (`store::checkpoint`), which restores the live
//!   files from its copies.
//!
//! Where the file system has no `RENAME_EXCHANGE` (the call fails with
//! `EINVAL`, `ENOSYS` or `EOPNOTSUPP`), or off Linux, the spare is renamed
//! over the live file as before; so is it where there is no live file yet
//! (that frees nothing). [`set_aside`] ends a file's life (the staged
//! `phase/next-seed` when a resolution ends) by renaming it to its spare,
//! and the next replacement renames the spare back into place: neither
//! frees an inode.
//!
//! An exchange can give a file back an inode it had before, so the
//! identity `.wake` records (`store::wake`: inode, size, time) could match
//! again after two replacements within one tick of the file system's
//! clock: every replacement here removes `.wake` (the next `run` runs
//! fully, as after any resolution).
#![allow(clippy::disallowed_methods)] // adapter: this module owns file I/O

use super::{GameDir, durable, fault, sync_dir};
use anyhow::{Context, Result};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `.spare/` in the game directory.
pub fn dir_of(dir: &GameDir) -> PathBuf {
    dir.root.join(".spare")
}

/// The spare of `live`, a path inside the game directory: the same
/// relative path under `.spare/`.
pub fn spare_of(dir: &GameDir, live: &Path) -> Result<PathBuf> {
    let rel = live
        .strip_prefix(&dir.root)
        .with_context(|| format!("{} is not inside {}", live.display(), dir.root.display()))?;
    Ok(dir_of(dir).join(rel))
}

/// Replace each live file of `files` with its bytes, in order: all the
/// spares written first, made durable together (the group's barrier, when
/// some live file exists to be exchanged), then exchanged one by one.
/// A crash between two exchanges leaves the first files new and the
/// others old, as a sequence of renames would.
pub fn replace_all(dir: &GameDir, files: &[(&Path, &[u8])]) -> Result<()> {
    replace(dir, files, false)
}

/// A commit point through a spare: everything written before and the new
/// bytes of `live` made durable in one barrier, then the exchange, then
/// a barrier for the directories (as `store::commit_write` does with a
/// temporary file).
pub fn commit(dir: &GameDir, live: &Path, bytes: &[u8]) -> Result<()> {
    replace(dir, &[(live, bytes)], true)?;
    durable::barrier()
}

fn replace(dir: &GameDir, files: &[(&Path, &[u8])], barrier_first: bool) -> Result<()> {
    let mut spares = Vec::with_capacity(files.len());
    for (live, bytes) in files {
        let spare = spare_of(dir, live)?;
        write_spare(&spare, bytes)?;
        spares.push(spare);
    }
    if barrier_first || files.iter().any(|(live, _)| fs::symlink_metadata(live).is_ok()) {
        durable::barrier()?;
    }
    for ((live, _), spare) in files.iter().zip(&spares) {
        swap_in(spare, live)?;
        if let Some(d) = live.parent() {
            sync_dir(d);
        }
        if let Some(d) = spare.parent() {
            sync_dir(d);
        }
        fault::point(&live.display().to_string())?;
    }
    super::wake::clear(dir);
    Ok(())
}

/// Write `bytes` over the spare from its start (created 0600 if missing,
/// with its directories), then cut it to their length. Not truncated to
/// nothing first: that frees its blocks, which on a file system mounted
/// with `discard` and without a journal is a discard the writer waits
/// for, and ext4 then allocates the new blocks at once (`auto_da_alloc`
/// treats it as a replacement by truncation); blocks overwritten in place
/// are neither freed nor allocated.
fn write_spare(spare: &Path, bytes: &[u8]) -> Result<()> {
    create_dirs(spare.parent().unwrap_or(Path::new(".")))?;
    let mut f = open_spare(spare).with_context(|| format!("cannot open {}", spare.display()))?;
    // 0600 whatever the spare was before (a live file once): the files
    // replaced here were always written 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(fs::Permissions::from_mode(0o600))
            .with_context(|| format!("cannot make {} private", spare.display()))?;
    }
    f.write_all(bytes)
        .with_context(|| format!("cannot write {}", spare.display()))?;
    f.set_len(bytes.len() as u64)
        .with_context(|| format!("cannot write {}", spare.display()))?;
    durable::file_written(spare, &f)?;
    fault::point(&spare.display().to_string())
}

fn open_spare(spare: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(spare)
}

/// Create `d` and the directories above it that are missing, private
/// (best effort durable: a spare lost with its directory is made again).
fn create_dirs(d: &Path) -> Result<()> {
    if d.is_dir() {
        return Ok(());
    }
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(d).with_context(|| format!("cannot create {}", d.display()))?;
    if let Some(parent) = d.parent() {
        sync_dir(parent);
    }
    Ok(())
}

/// Put the spare under the live name: exchange the two, or rename the
/// spare into place where there is no live file or no exchange.
fn swap_in(spare: &Path, live: &Path) -> Result<()> {
    if exchange(spare, live)? {
        return Ok(());
    }
    fs::rename(spare, live).with_context(|| format!("cannot replace {}", live.display()))
}

/// Exchange the names `a` and `b`; `false` when that cannot be done here
/// (`b` does not exist, or the system or file system has no exchange).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use rustix::io::Errno;
    let r = if no_exchange() {
        Err(Errno::INVAL)
    } else {
        renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE)
    };
    match r {
        Ok(()) => Ok(true),
        Err(Errno::NOENT | Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => Ok(false),
        Err(e) => {
            Err(std::io::Error::from(e)).with_context(|| format!("cannot exchange {} and {}", a.display(), b.display()))
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> Result<bool> {
    Ok(false)
}

/// End the life of `live` (if it exists) by renaming it to its spare:
/// the next replacement of it renames the spare back, and no inode is
/// freed. The caller makes whatever must come first durable before.
pub fn set_aside(dir: &GameDir, live: &Path) -> Result<()> {
    if fs::symlink_metadata(live).is_err() {
        return Ok(());
    }
    let spare = spare_of(dir, live)?;
    create_dirs(spare.parent().unwrap_or(Path::new(".")))?;
    fs::rename(live, &spare).with_context(|| format!("cannot set {} aside", live.display()))?;
    if let Some(d) = live.parent() {
        sync_dir(d);
    }
    if let Some(d) = spare.parent() {
        sync_dir(d);
    }
    Ok(())
}

#[cfg(test)]
thread_local! {
    /// Tests: act as a file system without `RENAME_EXCHANGE` (`EINVAL`).
    static NO_EXCHANGE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether to act as a file system without `RENAME_EXCHANGE` (only ever
/// in this module's tests; the shipped build always tries the exchange).
#[cfg(test)]
fn no_exchange() -> bool {
    NO_EXCHANGE.with(std::cell::Cell::get)
}

#[cfg(not(test))]
fn no_exchange() -> bool {
    false
}

/// Tests: on this thread, act as a file system without `RENAME_EXCHANGE`
/// (every exchange fails with `EINVAL`) while `on`.
#[cfg(test)]
fn pretend_no_exchange(on: bool) {
    NO_EXCHANGE.with(|c| c.set(on));
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn ino(p: &Path) -> u64 {
        fs::symlink_metadata(p).unwrap().ino()
    }

    fn game() -> (tempfile::TempDir, GameDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = GameDir::new(tmp.path());
        fs::create_dir_all(dir.phase()).unwrap();
        let live = dir.phase().join("seed");
        (tmp, dir, live)
    }

    #[test]
    fn a_replacement_exchanges_the_live_file_with_its_spare() {
        let (_tmp, dir, live) = game();
        replace_all(&dir, &[(&live, b"one")]).unwrap();
        let spare = spare_of(&dir, &live).unwrap();
        assert_eq!(spare, dir.root.join(".spare/phase/seed"));
        assert!(!spare.exists(), "no live file yet: the spare was renamed into place");
        let first = ino(&live);
        replace_all(&dir, &[(&live, b"two")]).unwrap();
        assert_eq!(fs::read(&live).unwrap(), b"two");
        assert_eq!(fs::read(&spare).unwrap(), b"one", "the old bytes are the spare");
        assert_eq!(ino(&spare), first, "the old inode is kept as the spare");
        let second = ino(&live);
        replace_all(&dir, &[(&live, b"three")]).unwrap();
        assert_eq!(fs::read(&live).unwrap(), b"three");
        assert_eq!(ino(&live), first, "the spare came back under the live name");
        assert_eq!(ino(&spare), second);
        use std::os::unix::fs::PermissionsExt;
        for p in [&live, &spare] {
            assert_eq!(fs::metadata(p).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert_eq!(fs::metadata(dir_of(&dir)).unwrap().permissions().mode() & 0o777, 0o700);
    }

    #[test]
    fn without_exchange_the_spare_is_renamed_over_the_live_file() {
        let (_tmp, dir, live) = game();
        replace_all(&dir, &[(&live, b"one")]).unwrap();
        replace_all(&dir, &[(&live, b"two")]).unwrap();
        let spare = spare_of(&dir, &live).unwrap();
        let old_spare = ino(&spare);
        pretend_no_exchange(true);
        let r = replace_all(&dir, &[(&live, b"three")]);
        pretend_no_exchange(false);
        r.unwrap();
        assert_eq!(fs::read(&live).unwrap(), b"three");
        assert_eq!(ino(&live), old_spare, "the spare was renamed into place");
        assert!(!spare.exists(), "and the old live file is gone, as with a rename");
        // The next replacement makes a new spare.
        replace_all(&dir, &[(&live, b"four")]).unwrap();
        assert_eq!(fs::read(&live).unwrap(), b"four");
    }

    #[test]
    fn a_spare_left_half_written_is_never_read_and_is_rewritten_whole() {
        let (_tmp, dir, live) = game();
        replace_all(&dir, &[(&live, b"one")]).unwrap();
        replace_all(&dir, &[(&live, b"two")]).unwrap();
        let spare = spare_of(&dir, &live).unwrap();
        // A crash in the middle of writing a longer replacement.
        fs::write(&spare, "a torn and much longer replacement that never got ex").unwrap();
        assert_eq!(fs::read(&live).unwrap(), b"two", "the live file is untouched");
        replace_all(&dir, &[(&live, b"three")]).unwrap();
        assert_eq!(fs::read(&live).unwrap(), b"three", "cut to the new length");
    }

    #[test]
    fn a_file_set_aside_comes_back_as_the_next_replacement() {
        let (_tmp, dir, _) = game();
        let live = dir.phase().join("next-seed");
        set_aside(&dir, &live).unwrap();
        replace_all(&dir, &[(&live, b"staged")]).unwrap();
        let staged = ino(&live);
        set_aside(&dir, &live).unwrap();
        assert!(!live.exists());
        let spare = spare_of(&dir, &live).unwrap();
        assert_eq!(ino(&spare), staged);
        replace_all(&dir, &[(&live, b"staged again")]).unwrap();
        assert_eq!(ino(&live), staged, "the same inode, no new one");
        assert_eq!(fs::read(&live).unwrap(), b"staged again");
        assert!(!spare.exists());
    }

    #[test]
    fn a_file_set_aside_before_any_spare_makes_the_spare_directory() {
        let (_tmp, dir, _) = game();
        let live = dir.phase().join("next-seed");
        fs::write(&live, "staged by an older version").unwrap();
        let staged = ino(&live);
        set_aside(&dir, &live).unwrap();
        assert!(!live.exists());
        let spare = spare_of(&dir, &live).unwrap();
        assert_eq!(ino(&spare), staged);
        set_aside(&dir, &live).unwrap();
        assert_eq!(ino(&spare), staged, "nothing to set aside: the spare stays");
    }

    #[test]
    fn in_a_group_the_spares_are_durable_before_the_exchange() {
        let (_tmp, dir, live) = game();
        replace_all(&dir, &[(&live, b"one")]).unwrap();
        let other = dir.phase().join("commitment");
        replace_all(&dir, &[(&other, b"c")]).unwrap();
        let g = durable::group();
        replace_all(&dir, &[(&live, b"two"), (&other, b"d")]).unwrap();
        assert_eq!(
            durable::pending_files(),
            0,
            "the barrier before the exchanges took both spares"
        );
        g.commit().unwrap();
        assert_eq!(fs::read(&live).unwrap(), b"two");
        assert_eq!(fs::read(&other).unwrap(), b"d");
    }

    #[test]
    fn a_replacement_removes_the_wake_file() {
        let (_tmp, dir, live) = game();
        let wake = dir.root.join(".wake");
        fs::write(&wake, "game x\nat never\n").unwrap();
        replace_all(&dir, &[(&live, b"one")]).unwrap();
        assert!(!wake.exists());
    }
}
