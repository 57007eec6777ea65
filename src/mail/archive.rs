//! The inbox archive: every raw message, byte for byte, in a Maildir
//! (`tmp/`, `new/`, `cur/`). A message is written to `tmp/`, fsynced and
//! renamed into `new/<sha256>`; once processed it moves to
//! `cur/<sha256>:2,S`. Nothing is ever deleted. The name is the SHA-256 of
//! the bytes, so the same message (same Message-ID, same bytes) ingested
//! twice is recognised; a message left in `new/` by a crash is processed
//! again on the next run (its replies have stable ids, so nothing is sent
//! twice).

use super::sha256_hex;
use crate::store::sync_dir;
use anyhow::{Context, Result};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a message stands in the archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// Just archived: process it.
    New,
    /// Archived earlier but not processed (a crash): process it.
    Pending,
    /// Archived and processed earlier: a duplicate.
    Done,
}

/// An archived message.
#[derive(Clone, Debug)]
pub struct Archived {
    pub hash: String,
    pub stored: Stored,
    pub path: PathBuf,
}

fn done_name(hash: &str) -> String {
    format!("{hash}:2,S")
}

/// Cut a processed message of `inbox` down to its header block and a
/// line with the SHA-256 and size of its bytes (the retention of refused
/// mail, `mail.refused_keep_days`). Its name, the hash of the original
/// bytes, stays, so the same message sent again is still a duplicate.
/// Returns false when there is nothing to cut (not processed, or cut
/// already).
pub fn trim(inbox: &Path, hash: &str, keep_days: u32) -> Result<bool> {
    let path = inbox.join("cur").join(done_name(hash));
    let Ok(raw) = fs::read(&path) else {
        return Ok(false);
    };
    if sha256_hex(&raw) != hash {
        return Ok(false);
    }
    let end = [&b"\r\n\r\n"[..], b"\n\n"]
        .iter()
        .filter_map(|sep| raw.windows(sep.len()).position(|w| w == *sep).map(|p| p + sep.len()))
        .min()
        .unwrap_or(raw.len())
        .min(64 * 1024);
    let mut out = raw[..end].to_vec();
    out.extend_from_slice(
        format!(
            "[Refused message: its body was removed after {keep_days} days (mail.refused_keep_days). The whole message was {} bytes, SHA-256 {hash}.]\n",
            raw.len()
        )
        .as_bytes(),
    );
    crate::store::atomic_write_mode(&path, &out, Some(0o600))?;
    Ok(true)
}

/// Make sure `inbox` has `tmp/ new/ cur/`.
pub fn ensure(inbox: &Path) -> Result<()> {
    for d in ["tmp", "new", "cur"] {
        let p = inbox.join(d);
        fs::create_dir_all(&p).with_context(|| format!("cannot create {}", p.display()))?;
    }
    Ok(())
}

/// Archive `raw` in the Maildir `inbox` (fsynced) unless it is there
/// already; say whether it still needs processing.
pub fn archive(inbox: &Path, raw: &[u8]) -> Result<Archived> {
    let hash = sha256_hex(raw);
    let done = inbox.join("cur").join(done_name(&hash));
    if done.exists() {
        return Ok(Archived {
            hash,
            stored: Stored::Done,
            path: done,
        });
    }
    let new = inbox.join("new").join(&hash);
    if new.exists() {
        return Ok(Archived {
            hash,
            stored: Stored::Pending,
            path: new,
        });
    }
    let tmp = inbox.join("tmp").join(format!("{hash}.{}", std::process::id()));
    {
        let mut opts = OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        // Archived mail holds PASSWORD lines: private whatever the umask.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        // The Maildir is made on first use, not checked for every message.
        let opened = match opts.open(&tmp) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                ensure(inbox)?;
                opts.open(&tmp)
            }
            other => other,
        };
        let mut f = opened.with_context(|| format!("cannot write {}", tmp.display()))?;
        f.write_all(raw)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        crate::store::durable::file_written(&new, &f)?;
    }
    let moved = match fs::rename(&tmp, &new) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            ensure(inbox)?;
            fs::rename(&tmp, &new)
        }
        other => other,
    };
    moved.with_context(|| format!("cannot move {} into new/", tmp.display()))?;
    sync_dir(&inbox.join("new"));
    crate::store::fault::point(&new.display().to_string())?;
    Ok(Archived {
        hash,
        stored: Stored::New,
        path: new,
    })
}

/// Whether the message with this hash was archived and processed.
pub fn is_done(inbox: &Path, hash: &str) -> bool {
    inbox.join("cur").join(done_name(hash)).exists()
}

/// Mark an archived message processed (`new/` -> `cur/`, flag Seen).
pub fn mark_done(inbox: &Path, hash: &str) -> Result<()> {
    // A commit point: what processing the message wrote is durable first.
    crate::store::durable::barrier()?;
    let from = inbox.join("new").join(hash);
    let to = inbox.join("cur").join(done_name(hash));
    if from.exists() {
        fs::rename(&from, &to).with_context(|| format!("cannot move {} to cur/", from.display()))?;
        sync_dir(&inbox.join("cur"));
    }
    Ok(())
}

/// Mark many messages processed, with one directory fsync.
pub fn mark_done_many(inbox: &Path, hashes: &[String]) -> Result<()> {
    // A commit point: what processing the messages wrote is durable first.
    crate::store::durable::barrier()?;
    for hash in hashes {
        let from = inbox.join("new").join(hash);
        if from.exists() {
            let to = inbox.join("cur").join(done_name(hash));
            fs::rename(&from, &to).with_context(|| format!("cannot move {} to cur/", from.display()))?;
        }
    }
    if !hashes.is_empty() {
        sync_dir(&inbox.join("cur"));
    }
    Ok(())
}

/// Hashes of the messages archived but not yet processed, oldest name
/// first (sorted, so runs are reproducible).
pub fn pending(inbox: &Path) -> Result<Vec<String>> {
    let dir = inbox.join("new");
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for e in fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let name = e?.file_name();
        if let Some(n) = name.to_str() {
            out.push(n.to_string());
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_are_archived_once_and_never_deleted() {
        let d = tempfile::tempdir().unwrap();
        let inbox = d.path().join("inbox");
        let a = archive(&inbox, b"Message-ID: <a@x>\r\n\r\nhello").unwrap();
        assert_eq!(a.stored, Stored::New);
        assert_eq!(fs::read(&a.path).unwrap(), b"Message-ID: <a@x>\r\n\r\nhello");
        let again = archive(&inbox, b"Message-ID: <a@x>\r\n\r\nhello").unwrap();
        assert_eq!(again.stored, Stored::Pending);
        assert_eq!(pending(&inbox).unwrap(), vec![a.hash.clone()]);
        mark_done(&inbox, &a.hash).unwrap();
        let third = archive(&inbox, b"Message-ID: <a@x>\r\n\r\nhello").unwrap();
        assert_eq!(third.stored, Stored::Done);
        assert!(third.path.exists());
        // Same Message-ID, other bytes: a different message.
        let other = archive(&inbox, b"Message-ID: <a@x>\r\n\r\nhello again").unwrap();
        assert_eq!(other.stored, Stored::New);
        assert!(fs::read_dir(inbox.join("tmp")).unwrap().next().is_none());
    }
}
