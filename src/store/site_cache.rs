//! `.site-cache/<entry>`: what the public site made of each history entry
//! (its page: public outcomes, standings, public map), so that a site
//! refreshed after a phase, or made again, parses and draws only the
//! entries it has not seen (`ops::site`). The caller keys each entry by a
//! digest of everything its page is made from; an entry is used only
//! when its key is the one asked for, so a stale or edited entry is made
//! again and never shown. It holds only what the site publishes anyway.
//!
//! A cache: written without fsync; a torn or unreadable file is a miss.
#![allow(clippy::disallowed_methods)] // adapter: this module owns file I/O

use super::GameDir;
use std::fs;
use std::path::PathBuf;

fn root(dir: &GameDir) -> PathBuf {
    dir.root.join(".site-cache")
}

/// The stored bytes of `entry` (a history entry's directory name) if
/// they were stored under `key`.
pub fn get(dir: &GameDir, entry: &str, key: &str) -> Option<Vec<u8>> {
    let bytes = fs::read(root(dir).join(entry)).ok()?;
    let rest = bytes.strip_prefix(key.as_bytes())?.strip_prefix(b"\n")?;
    Some(rest.to_vec())
}

/// Store `bytes` for `entry` under `key`. A cache that cannot be written
/// costs only the work next time.
pub fn put(dir: &GameDir, entry: &str, key: &str, bytes: &[u8]) {
    let root = root(dir);
    if fs::create_dir_all(&root).is_err() {
        return;
    }
    let mut text = Vec::with_capacity(key.len() + 1 + bytes.len());
    text.extend_from_slice(key.as_bytes());
    text.push(b'\n');
    text.extend_from_slice(bytes);
    // one temporary name per process and entry: pages are made on threads
    let tmp = root.join(format!(".{entry}.{}.tmp", std::process::id()));
    if fs::write(&tmp, text)
        .and_then(|()| fs::rename(&tmp, root.join(entry)))
        .is_err()
    {
        let _ = fs::remove_file(&tmp);
    }
}
