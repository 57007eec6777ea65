//! `mail/mailed.toml`: what has been queued for each history entry and
//! each recipient, so that every entry (a resolution, an undo, a
//! moderator's correction, whichever command made it) is mailed once, in
//! order, by the next `run` or `mail`, and a run after a crash queues what
//! is missing and no more.
//!
//! ```toml
//! format = 2
//! [items]
//! "opening/start" = ["austria", "britain", ...]
//! "report/0001-1805-fall-turn-start" = ["austria", ..., "moderator"]
//! "opening/0001-1805-fall-turn-start" = ["austria", ...]
//! ```
//!
//! An item is the turn report of an entry, the notice of an undo, or the
//! opening of the phase an entry opened (`start` for the first phase);
//! recipients are power ids or `moderator`. The older form (two sets,
//! `entries` and `openings` as `<phase>@<entries>`) is read and converted.

use crate::store::{self, GameDir};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The current format of `mailed.toml`.
pub const FORMAT: u32 = 2;

/// The key of the first phase's opening (no history entry opened it).
pub const START: &str = "start";

/// One thing mailed about a history entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Item {
    /// The turn report of a resolution, or the notice of an undo or a
    /// correction.
    Report,
    /// The opening of the phase the entry opened.
    Opening,
}

impl Item {
    fn prefix(self) -> &'static str {
        match self {
            Item::Report => "report",
            Item::Opening => "opening",
        }
    }
}

/// The record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mailed {
    #[serde(default)]
    pub format: u32,
    /// `<item>/<entry>` -> recipients it was queued for.
    #[serde(default)]
    pub items: BTreeMap<String, BTreeSet<String>>,
    /// Older form: entries whose reports were queued.
    #[serde(default, skip_serializing)]
    entries: BTreeSet<String>,
    /// Older form: openings queued, as `<phase>@<number of entries>`.
    #[serde(default, skip_serializing)]
    openings: BTreeSet<String>,
    /// Converted from the older form when read (not saved since).
    #[serde(skip)]
    converted: bool,
}

fn key(item: Item, entry: &str) -> String {
    format!("{}/{entry}", item.prefix())
}

impl Mailed {
    /// Whether `item` of `entry` was queued for `who`.
    pub fn has(&self, item: Item, entry: &str, who: &str) -> bool {
        self.items.get(&key(item, entry)).is_some_and(|s| s.contains(who))
    }

    /// Record that `item` of `entry` was queued for `who`.
    pub fn mark(&mut self, item: Item, entry: &str, who: &str) {
        self.items.entry(key(item, entry)).or_default().insert(who.to_string());
    }

    /// Convert the older form, given the history's entry names by number.
    /// Everything it listed counts as mailed to everyone in `everyone`.
    fn upgrade(&mut self, entries: &BTreeMap<u32, String>, everyone: &[String]) {
        let old_entries = std::mem::take(&mut self.entries);
        let old_openings = std::mem::take(&mut self.openings);
        for e in old_entries {
            for who in everyone {
                self.mark(Item::Report, &e, who);
            }
        }
        for o in old_openings {
            let Some(n) = o.rsplit_once('@').and_then(|(_, n)| n.parse::<u32>().ok()) else {
                continue;
            };
            let entry = if n == 0 {
                START.to_string()
            } else {
                match entries.get(&n) {
                    Some(name) => name.clone(),
                    None => continue,
                }
            };
            for who in everyone {
                self.mark(Item::Opening, &entry, who);
            }
        }
        self.format = FORMAT;
        self.converted = true;
    }

    /// Whether this record was converted from the older form when read:
    /// every entry must then be looked at once (the older form tracked
    /// only the last few).
    pub fn converted(&self) -> bool {
        self.converted
    }
}

pub fn path(dir: &GameDir) -> PathBuf {
    dir.root.join("mail").join("mailed.toml")
}

/// Read the record (empty when the game has mailed nothing). `everyone`
/// (power ids and `moderator`) is used to convert the older form.
pub fn load(dir: &GameDir, everyone: &[String]) -> Result<Mailed> {
    let p = path(dir);
    if !p.exists() {
        return Ok(Mailed {
            format: FORMAT,
            ..Mailed::default()
        });
    }
    let mut m: Mailed =
        toml::from_str(&store::read_text(&p)?).with_context(|| format!("{} is damaged", p.display()))?;
    if m.format < FORMAT {
        m.upgrade(&store::history::list(dir)?, everyone);
    }
    Ok(m)
}

pub fn save(dir: &GameDir, m: &Mailed) -> Result<()> {
    store::atomic_write(&path(dir), toml::to_string(m)?.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_older_form_counts_as_mailed_to_everyone() {
        let mut m: Mailed = toml::from_str(
            "entries = [\"0002-1805-fall-france\"]\nopenings = [\"1805-fall-turn-start@0\", \"1805-fall-britain@2\"]\n",
        )
        .unwrap();
        assert_eq!(m.format, 0);
        let names: BTreeMap<u32, String> = [(1, "0001-1805-fall-turn-start"), (2, "0002-1805-fall-france")]
            .into_iter()
            .map(|(n, s)| (n, s.to_string()))
            .collect();
        let everyone = vec!["france".to_string(), "moderator".to_string()];
        m.upgrade(&names, &everyone);
        assert!(m.has(Item::Report, "0002-1805-fall-france", "moderator"));
        assert!(!m.has(Item::Report, "0001-1805-fall-turn-start", "france"));
        assert!(m.has(Item::Opening, START, "france"));
        assert!(m.has(Item::Opening, "0002-1805-fall-france", "france"));
        assert!(!m.has(Item::Opening, "0001-1805-fall-turn-start", "france"));
        let text = toml::to_string(&m).unwrap();
        assert!(text.starts_with("format = 2"), "{text}");
        assert!(!text.contains("openings"), "{text}");
    }

    /// `load` upgrades a record in the older form (format 0) as it reads
    /// it, and takes one in the current form as it is.
    #[test]
    fn load_upgrades_the_older_form_and_keeps_the_current_one() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = GameDir::new(tmp.path());
        for entry in ["0001-1805-fall-turn-start", "0002-1805-fall-france"] {
            std::fs::create_dir_all(dir.history().join(entry)).unwrap();
        }
        std::fs::create_dir_all(path(&dir).parent().unwrap()).unwrap();
        std::fs::write(
            path(&dir),
            "entries = [\"0002-1805-fall-france\"]\nopenings = [\"1805-fall-britain@2\"]\n",
        )
        .unwrap();
        let everyone = vec!["france".to_string(), "moderator".to_string()];
        let m = load(&dir, &everyone).unwrap();
        assert_eq!(m.format, FORMAT);
        assert!(m.has(Item::Report, "0002-1805-fall-france", "france"));
        assert!(m.has(Item::Opening, "0002-1805-fall-france", "moderator"));
        assert!(!m.has(Item::Report, "0001-1805-fall-turn-start", "france"));
        save(&dir, &m).unwrap();
        let again = load(&dir, &everyone).unwrap();
        assert_eq!((again.format, &again.items), (FORMAT, &m.items));
        assert!(!again.converted, "a record in the current form is not converted again");
    }
}
