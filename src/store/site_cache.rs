//! `.site-cache/pages`: what the public site made of each history entry
//! (its page: public outcomes, standings, public map), so that a site
//! refreshed after a phase, or made again, parses and draws only the
//! entries it has not seen (`ops::site`). The caller keys each entry by a
//! digest of everything its page is made from; an entry is used only
//! when its key is the one asked for, so a stale or edited entry is made
//! again and never shown. It holds only what the site publishes anyway.
//!
//! One file for every entry, not one a entry: on a disk where creating a
//! file costs hundreds of microseconds of kernel time, the first site of
//! a campaign spent more creating 235 cache files than writing their
//! bytes. The file is a run of records, each a line `<entry> <key>
//! <length>` then `<length>` bytes and a newline; a later record of an
//! entry replaces an earlier one. New pages are appended; the file is
//! written again whole (under a temporary name, renamed over) when most
//! of it is pages no entry uses any more, or when it ends in a record cut
//! short (a crash while appending).
//!
//! A cache: written without fsync; an unreadable or torn record is a miss.
#![allow(clippy::disallowed_methods)] // adapter: this module owns file I/O

use super::GameDir;
use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// The cache the site keeps (`.site-cache/pages`; may be deleted at any
/// time).
pub fn cache_file(dir: &GameDir) -> PathBuf {
    dir.root.join(".site-cache").join("pages")
}

/// The public pages the resolution writes beside the history
/// (`public-pages`), one record an entry it made, so that a first site
/// parses no state: the same records, but keyed by what the page is made
/// of only (not the program), since no later program can make them again
/// without parsing.
pub fn public_file(dir: &GameDir) -> PathBuf {
    dir.root.join("public-pages")
}

/// The map of the public page keyed `key` (`public-maps/<key>.svg`): a
/// file of its own, not in the record, so that the site's copy of it can
/// be a link to it (the maps are half the bytes a site writes).
pub fn public_map(dir: &GameDir, key: &str) -> PathBuf {
    dir.root.join("public-maps").join(format!("{key}.svg"))
}

/// Write `bytes` as the file `path`, made under a temporary name and
/// renamed, so that a file of that name is whole (a site may link it).
pub fn write_whole(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    fs::create_dir_all(dir)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    fs::write(&tmp, bytes)?;
    fs::rename(&tmp, path)
}

/// The cache as read: its bytes and, for each entry, the key and bytes of
/// its last record.
#[derive(Debug, Default)]
pub struct Pages {
    file: PathBuf,
    /// Shared with the pages read from it ([`Pages::get_shared`]).
    bytes: Arc<Vec<u8>>,
    records: HashMap<String, (String, Range<usize>)>,
    /// Where the last whole record ends: anything after it is torn.
    whole: usize,
}

/// A page to store: the entry's directory name, its key, its bytes.
pub type Made = (String, String, Vec<u8>);

/// Whether `s` can stand in a record's first line.
fn plain(s: &str) -> bool {
    !s.is_empty() && !s.contains([' ', '\n', '\r'])
}

/// The records of `bytes`, up to the first that is cut short or
/// malformed.
fn parse(bytes: &[u8]) -> (HashMap<String, (String, Range<usize>)>, usize) {
    let mut records = HashMap::new();
    let mut at = 0;
    while let Some(nl) = bytes[at..].iter().position(|b| *b == b'\n') {
        let Ok(line) = std::str::from_utf8(&bytes[at..at + nl]) else {
            break;
        };
        let mut parts = line.split(' ');
        let (Some(entry), Some(key), Some(len), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
            break;
        };
        let Ok(len) = len.parse::<usize>() else { break };
        let start = at + nl + 1;
        let Some(end) = start.checked_add(len).filter(|e| *e < bytes.len()) else {
            break;
        };
        if bytes[end] != b'\n' || !plain(entry) || !plain(key) {
            break;
        }
        records.insert(entry.to_string(), (key.to_string(), start..end));
        at = end + 1;
    }
    (records, at)
}

/// The pages of `file` (empty if there is none or it cannot be read).
pub fn load(file: PathBuf) -> Pages {
    let bytes = fs::read(&file).unwrap_or_default();
    let (records, whole) = parse(&bytes);
    Pages {
        file,
        bytes: Arc::new(bytes),
        records,
        whole,
    }
}

/// Append the pages `made` to `file` without reading it (the resolution:
/// one page a phase). A record after a torn one is not read; the next
/// [`Pages::save`] of the file writes it again whole.
pub fn append(file: &std::path::Path, made: &[Made]) -> std::io::Result<()> {
    let mut out = Vec::new();
    for (e, k, b) in made.iter().filter(|(e, k, _)| plain(e) && plain(k)) {
        record(&mut out, e, k, b);
    }
    fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(file)
        .and_then(|mut f| f.write_all(&out))
}

fn record(out: &mut Vec<u8>, entry: &str, key: &str, bytes: &[u8]) {
    out.extend_from_slice(format!("{entry} {key} {}\n", bytes.len()).as_bytes());
    out.extend_from_slice(bytes);
    out.push(b'\n');
}

impl Pages {
    /// The stored bytes of `entry` (a history entry's directory name) if
    /// they were stored under `key`. The site reads them shared
    /// ([`Pages::get_shared`]); this is the tests' view of them.
    #[cfg(test)]
    pub fn get(&self, entry: &str, key: &str) -> Option<&[u8]> {
        self.get_shared(entry, key).map(|(bytes, range)| &bytes[range])
    }

    /// The same, as where they are in the bytes of the whole file, which
    /// the caller may keep (so that a page need not be copied out).
    pub fn get_shared(&self, entry: &str, key: &str) -> Option<(&Arc<Vec<u8>>, Range<usize>)> {
        let (k, range) = self.records.get(entry)?;
        (k == key).then(|| (&self.bytes, range.clone()))
    }

    /// Store the pages `made`; `keys` is every entry's key now, so that
    /// pages no entry uses any more can be dropped. A cache that cannot be
    /// written costs only the work next time.
    pub fn save(&self, made: &[Made], keys: &HashMap<&str, &str>) {
        let made: Vec<&Made> = made.iter().filter(|(e, k, _)| plain(e) && plain(k)).collect();
        let torn = self.whole != self.bytes.len();
        let root = self.file.parent().unwrap_or(std::path::Path::new("."));
        if (made.is_empty() && !torn) || fs::create_dir_all(root).is_err() {
            return;
        }
        let is_new = |e: &str| made.iter().any(|(m, _, _)| m == e);
        // The records kept that entries still use, and are not made again.
        let kept: Vec<(&String, &String, &Range<usize>)> = self
            .records
            .iter()
            .filter(|(e, (k, _))| keys.get(e.as_str()) == Some(&k.as_str()) && !is_new(e))
            .map(|(e, (k, r))| (e, k, r))
            .collect();
        let live: usize = kept.iter().map(|(_, _, r)| r.len()).sum();
        let mut out = Vec::new();
        if !torn && self.whole <= 2 * live.max(1 << 20) {
            for (e, k, b) in &made {
                record(&mut out, e, k, b);
            }
            let appended = fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&self.file)
                .and_then(|mut f| f.write_all(&out));
            if appended.is_ok() {
                return;
            }
            out.clear();
        }
        // Written again whole: only what entries use now.
        let mut kept = kept;
        kept.sort_by(|a, b| a.0.cmp(b.0));
        for (e, k, r) in kept {
            record(&mut out, e, k, &self.bytes[r.clone()]);
        }
        for (e, k, b) in &made {
            record(&mut out, e, k, b);
        }
        let name = self.file.file_name().and_then(|n| n.to_str()).unwrap_or("pages");
        let tmp = root.join(format!(".{name}.{}.tmp", std::process::id()));
        if fs::write(&tmp, out)
            .and_then(|()| fs::rename(&tmp, &self.file))
            .is_err()
        {
            let _ = fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_a_later_one_wins_and_a_torn_tail_is_a_miss() {
        let mut b = Vec::new();
        record(&mut b, "0001-a", "k1", b"one\nline");
        record(&mut b, "0002-b", "k2", b"two");
        record(&mut b, "0001-a", "k3", b"again");
        let whole = b.len();
        b.extend_from_slice(b"0003-c k4 100\nshort");
        let (records, end) = parse(&b);
        assert_eq!(end, whole);
        let pages = Pages {
            file: PathBuf::new(),
            bytes: Arc::new(b),
            records,
            whole: end,
        };
        assert_eq!(pages.get("0001-a", "k3"), Some(&b"again"[..]));
        assert_eq!(pages.get("0001-a", "k1"), None, "replaced by the later record");
        assert_eq!(pages.get("0002-b", "k2"), Some(&b"two"[..]));
        assert_eq!(pages.get("0003-c", "k4"), None, "cut short");
    }
}
