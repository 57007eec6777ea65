//! The history: one directory per resolved phase or moderator action,
//! `history/NNNN-<phase-id>/`, written once and never rewritten, chained
//! by hashes (docs/dice.md, "Hash chain").
//!
//! ```text
//! history/head.toml                 entries = N, head = SHA-256 of entry N's entry.toml
//! history/0001-1805-fall-turn-start/
//!   entry.toml                      kind, phase, previous, commitments, [files] hashes
//!   state-before.toml  orders/<power>.toml  seed  entropy.toml  dice.toml
//!   outcomes.toml  state-after.toml  report.txt
//! ```
//!
//! An entry is written under `history/.tmp-…`, fsynced and renamed into
//! place; it counts only once `head.toml` names it (the commit point of
//! a resolution). Entries beyond the head are leftovers of a crash and
//! are removed by [`discard_uncommitted`].
#![allow(clippy::disallowed_methods)] // adapter: files

use super::{GameDir, read_text, sync_dir};
use crate::dice::Roll;
use crate::ids::{PhaseId, PowerId};
use crate::rules::Outcome;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Schema version of `entry.toml`. Format 3: only a player's own mail
/// adds entropy (orders the moderator enters add none), and a game's
/// seeds come from the seed chain of its genesis entry. Format 2: each
/// stored submission's receipt (and typed text) was its power's entropy,
/// undo keeps the reopened phase's seed; format 1 entries took the typed
/// text alone.
pub const ENTRY_FORMAT: u32 = 3;
/// The kind of entry 0, written when the game is created: it publishes
/// the seed chain's anchor and the first phase's commitment.
pub const GENESIS: &str = "genesis";
/// The `previous` of the first entry and the head of an empty history.
pub const ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `entry.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryRecord {
    pub format: u32,
    pub number: u32,
    /// `resolve`, `moderator` (orders entered by hand, corrections) or
    /// `undo` (a rollback).
    pub kind: String,
    pub game: String,
    /// The phase the entry belongs to (the one resolved, for `resolve`).
    pub phase: PhaseId,
    /// SHA-256 of the previous entry's `entry.toml` (ZERO for the first).
    pub previous: String,
    /// The commitment of the resolved phase (its seed is in `seed`).
    #[serde(default)]
    pub commitment: Option<String>,
    /// The phase this entry opened and its new commitment.
    #[serde(default)]
    pub next_phase: Option<PhaseId>,
    #[serde(default)]
    pub next_commitment: Option<String>,
    /// Who or what made the entry, in a line (`--manual-dice`, "orders of
    /// austria entered by the moderator", …).
    #[serde(default)]
    pub note: String,
    /// Powers that sent nothing by the deadline: the resolution added a
    /// `no-orders` outcome for each, in this order, before the engine's
    /// outcomes (replay adds the same).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub late: Vec<PowerId>,
    /// A re-resolution after an undo: the entry whose resolution was
    /// rolled back. Its seed, commitment and entropy are kept, so every
    /// purpose rolls the same die again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redo_of: Option<String>,
    /// Of a re-resolution: the powers whose orders differ from those of
    /// `redo_of` (what the report says changed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<PowerId>,
    /// Of a resolve entry that opened a Turn Start: the NPCs the
    /// moderator had seated a player on, made Player Countries after the
    /// engine ran (3.2, `rules::seating`); replay does the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seated: Vec<PowerId>,
    /// Of an undo entry: the entry rolled back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undone: Option<String>,
    /// Of an undo entry: the phase that was open and is abandoned, and
    /// its commitment; its seed is revealed in `abandoned-seed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandoned_phase: Option<PhaseId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandoned_commitment: Option<String>,
    /// The public beacon (docs/dice.md 2a) named by the commitment of the
    /// seed this entry reveals (`seed`, or `abandoned-seed` of an undo):
    /// the network and the round; absent without a beacon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_round: Option<u64>,
    /// Of a resolve entry with a beacon: the round's signature (hex),
    /// folded into the dice key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_signature: Option<String>,
    /// `manual` when the phase this entry opened was announced with
    /// physical dice before it opened (`empereur physical-dice`): only
    /// then may it be resolved with `--manual-dice`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_dice: Option<String>,
    /// Of the genesis entry: the anchor of the game's seed chain (link 0,
    /// hex) and how many links follow it (docs/dice.md 1a).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_anchor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_length: Option<u32>,
    /// SHA-256 (hex) of every other file of the entry, by relative path.
    pub files: BTreeMap<String, String>,
}

/// `history/head.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub entries: u32,
    /// SHA-256 of the last entry's `entry.toml` (ZERO when empty).
    pub head: String,
    /// Directory name of the last entry.
    #[serde(default)]
    pub last: String,
}

impl Default for Head {
    fn default() -> Self {
        Head {
            entries: 0,
            head: ZERO.to_string(),
            last: String::new(),
        }
    }
}

/// The dice log file, `dice.toml`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DiceLog {
    #[serde(default, rename = "roll")]
    pub rolls: Vec<Roll>,
}

/// `entropy.toml`: each power's entropy line as given (absent = empty).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EntropyFile {
    #[serde(default)]
    pub entropy: BTreeMap<PowerId, String>,
}

/// `outcomes.toml`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OutcomesFile {
    #[serde(default, rename = "outcome")]
    pub outcomes: Vec<Outcome>,
}

/// `lock.toml` of a resolve entry: what was locked and mailed to every
/// player before the phase was resolved (docs/dice.md, "The orders lock").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockFile {
    pub game: String,
    pub phase: PhaseId,
    /// The commitment of the phase's seed.
    pub commitment: String,
    /// `committed`, or `manual` (dice typed in by the moderator).
    pub dice: String,
    /// The manual dice as typed, when `dice = "manual"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manual_dice: Option<String>,
    /// A re-resolution after an undo: the entry whose key is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redo_of: Option<String>,
    /// The public beacon folded into the key (docs/dice.md 2a): network,
    /// round and its signature (hex), fetched before the lock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_round: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_signature: Option<String>,
    /// Each power with a stored submission.
    #[serde(default, rename = "power")]
    pub powers: BTreeMap<PowerId, LockedPower>,
}

/// One power's locked submission.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedPower {
    /// `moderator` when the moderator entered the orders, else `player`.
    pub by: String,
    /// SHA-256 of the stored submission (`orders/<power>.toml`).
    pub receipt: String,
    /// The entropy folded into the key for this power.
    pub entropy: String,
}

/// An entry to be written: its kind, phase, links and file contents.
#[derive(Clone, Debug)]
pub struct Draft {
    pub kind: String,
    pub game: String,
    pub phase: PhaseId,
    pub commitment: Option<String>,
    pub next_phase: Option<PhaseId>,
    pub next_commitment: Option<String>,
    pub note: String,
    pub late: Vec<PowerId>,
    pub redo_of: Option<String>,
    pub changed: Vec<PowerId>,
    pub seated: Vec<PowerId>,
    pub undone: Option<String>,
    pub abandoned_phase: Option<PhaseId>,
    pub abandoned_commitment: Option<String>,
    pub beacon: Option<String>,
    pub beacon_round: Option<u64>,
    pub beacon_signature: Option<String>,
    pub next_dice: Option<String>,
    pub chain_anchor: Option<String>,
    pub chain_length: Option<u32>,
    /// Relative path (e.g. `orders/france.toml`) -> bytes.
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Draft {
    pub fn new(kind: &str, game: &str, phase: PhaseId) -> Draft {
        Draft {
            kind: kind.to_string(),
            game: game.to_string(),
            phase,
            commitment: None,
            next_phase: None,
            next_commitment: None,
            note: String::new(),
            late: Vec::new(),
            redo_of: None,
            changed: Vec::new(),
            seated: Vec::new(),
            undone: None,
            abandoned_phase: None,
            abandoned_commitment: None,
            beacon: None,
            beacon_round: None,
            beacon_signature: None,
            next_dice: None,
            chain_anchor: None,
            chain_length: None,
            files: BTreeMap::new(),
        }
    }
    pub fn file(&mut self, name: &str, bytes: impl Into<Vec<u8>>) -> &mut Draft {
        self.files.insert(name.to_string(), bytes.into());
        self
    }
}

/// A written entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryInfo {
    pub number: u32,
    /// Directory name, `NNNN-<phase>`.
    pub name: String,
    /// SHA-256 of its `entry.toml`.
    pub hash: String,
}

pub fn dir_name(number: u32, phase: PhaseId) -> String {
    format!("{number:04}-{phase}")
}

pub fn head_path(dir: &GameDir) -> PathBuf {
    dir.history().join("head.toml")
}

/// The chain head (an empty head when nothing was resolved yet).
pub fn read_head(dir: &GameDir) -> Result<Head> {
    let path = head_path(dir);
    if !path.exists() {
        return Ok(Head::default());
    }
    let text = read_text(&path)?;
    toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message().trim()))
}

/// The genesis entry's directory (entry 0), if the game has one: games
/// created before seed chains have none.
pub fn genesis(dir: &GameDir) -> Result<Option<String>> {
    let h = dir.history();
    if !h.is_dir() {
        return Ok(None);
    }
    for e in fs::read_dir(&h).with_context(|| format!("cannot read {}", h.display()))? {
        let e = e?;
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with("0000-") && is_dir(&e) {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

/// Write the genesis entry (entry 0) of a new game and make its hash the
/// head: entry 1 then names it as its previous entry. `head.toml` still
/// counts no entries and names no last one (`entries` and `last` are of
/// the phases' entries, 1 and up, which is what their readers want).
pub fn write_genesis(dir: &GameDir, draft: &Draft) -> Result<EntryInfo> {
    let (info, _) = stage_numbered(dir, draft, 0, ZERO)?;
    let head = Head {
        entries: 0,
        head: info.hash.clone(),
        last: String::new(),
    };
    let text = toml::to_string(&head).context("serialising head.toml")?;
    super::spare::commit(dir, &head_path(dir), text.as_bytes())?;
    Ok(info)
}

/// Entry directories on disk (committed or not), by number, from 1 (the
/// genesis entry 0 is [`genesis`]).
pub fn list(dir: &GameDir) -> Result<BTreeMap<u32, String>> {
    let mut out = BTreeMap::new();
    let h = dir.history();
    if !h.is_dir() {
        return Ok(out);
    }
    for e in fs::read_dir(&h).with_context(|| format!("cannot read {}", h.display()))? {
        let e = e?;
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with('.') || !is_dir(&e) {
            continue;
        }
        if let Some(n) = name.get(..4).and_then(|d| d.parse::<u32>().ok())
            && n > 0
        {
            out.insert(n, name);
        }
    }
    Ok(out)
}

/// Whether a directory entry is a directory (followed if a link), from
/// the type the listing gives where it can: every phase lists the
/// history, which grows by an entry a phase.
fn is_dir(e: &fs::DirEntry) -> bool {
    match e.file_type() {
        Ok(t) if !t.is_symlink() => t.is_dir(),
        _ => e.path().is_dir(),
    }
}

/// An entry's directory name and its files: (name relative to the entry,
/// path), sorted by name.
pub type EntryFiles = (String, Vec<(String, PathBuf)>);

/// The committed entries, the genesis entry (0) first, with their files.
/// What `export-history` and the site publish; an uncommitted leftover of
/// a crash is left out.
pub fn committed_files(dir: &GameDir) -> Result<Vec<EntryFiles>> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        for e in fs::read_dir(d).with_context(|| format!("cannot read {}", d.display()))? {
            let e = e?;
            let p = e.path();
            // the type the listing gives (no call for each file); a link
            // is followed
            let is_dir = match e.file_type() {
                Ok(t) if !t.is_symlink() => t.is_dir(),
                _ => p.is_dir(),
            };
            if is_dir {
                walk(&p, out)?;
            } else {
                out.push(p);
            }
        }
        Ok(())
    }
    let head = read_head(dir)?;
    let mut out = Vec::new();
    for (n, name) in genesis(dir)?.map(|g| (0, g)).into_iter().chain(list(dir)?) {
        if n > head.entries {
            continue;
        }
        let root = entry_dir(dir, &name);
        let mut paths = Vec::new();
        walk(&root, &mut paths)?;
        paths.sort();
        let files = paths
            .into_iter()
            .map(|p| {
                let rel = p.strip_prefix(&root).unwrap_or(&p).to_string_lossy().replace('\\', "/");
                (rel, p)
            })
            .collect();
        out.push((name, files));
    }
    Ok(out)
}

pub fn entry_dir(dir: &GameDir, name: &str) -> PathBuf {
    dir.history().join(name)
}

/// Read an entry's `entry.toml`: (record, raw bytes).
pub fn read_entry(dir: &GameDir, name: &str) -> Result<(EntryRecord, Vec<u8>)> {
    let path = entry_dir(dir, name).join("entry.toml");
    let bytes = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let text = std::str::from_utf8(&bytes).with_context(|| format!("{} is not UTF-8", path.display()))?;
    let rec = toml::from_str(text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message().trim()))?;
    Ok((rec, bytes))
}

/// Write an entry after the head, under a temporary name renamed into
/// place. It is not committed until [`commit`].
pub fn stage(dir: &GameDir, draft: &Draft) -> Result<(EntryInfo, Vec<u8>)> {
    let head = read_head(dir)?;
    stage_numbered(dir, draft, head.entries + 1, &head.head)
}

fn stage_numbered(dir: &GameDir, draft: &Draft, number: u32, previous: &str) -> Result<(EntryInfo, Vec<u8>)> {
    let name = dir_name(number, draft.phase);
    let fin = entry_dir(dir, &name);
    if fin.exists() {
        bail!("{} exists already; history entries are never rewritten", fin.display());
    }
    let tmp = dir.history().join(format!(".tmp-{name}"));
    if tmp.exists() {
        fs::remove_dir_all(&tmp).with_context(|| format!("cannot remove {}", tmp.display()))?;
    }
    let mut files = BTreeMap::new();
    for (rel, bytes) in &draft.files {
        check_rel(rel)?;
        write_synced(&tmp.join(rel), bytes)?;
        files.insert(rel.clone(), sha256_hex(bytes));
    }
    let rec = EntryRecord {
        format: ENTRY_FORMAT,
        number,
        kind: draft.kind.clone(),
        game: draft.game.clone(),
        phase: draft.phase,
        previous: previous.to_string(),
        commitment: draft.commitment.clone(),
        next_phase: draft.next_phase,
        next_commitment: draft.next_commitment.clone(),
        note: draft.note.clone(),
        late: draft.late.clone(),
        redo_of: draft.redo_of.clone(),
        changed: draft.changed.clone(),
        seated: draft.seated.clone(),
        undone: draft.undone.clone(),
        abandoned_phase: draft.abandoned_phase,
        abandoned_commitment: draft.abandoned_commitment.clone(),
        beacon: draft.beacon.clone(),
        beacon_round: draft.beacon_round,
        beacon_signature: draft.beacon_signature.clone(),
        next_dice: draft.next_dice.clone(),
        chain_anchor: draft.chain_anchor.clone(),
        chain_length: draft.chain_length,
        files,
    };
    let text = toml::to_string(&rec).context("serialising entry.toml")?;
    write_synced(&tmp.join("entry.toml"), text.as_bytes())?;
    sync_dir(&tmp);
    if tmp.join("orders").is_dir() {
        sync_dir(&tmp.join("orders"));
    }
    fs::rename(&tmp, &fin).with_context(|| format!("cannot rename {} to {}", tmp.display(), fin.display()))?;
    super::fault::point(&fin.display().to_string())?;
    sync_dir(&dir.history());
    let info = EntryInfo {
        number,
        name,
        hash: sha256_hex(text.as_bytes()),
    };
    Ok((info, text.into_bytes()))
}

/// Make a staged entry part of the chain: the commit point.
pub fn commit(dir: &GameDir, info: &EntryInfo) -> Result<()> {
    let head = Head {
        entries: info.number,
        head: info.hash.clone(),
        last: info.name.clone(),
    };
    let text = toml::to_string(&head).context("serialising head.toml")?;
    // The entry (and whatever the command wrote before it) is durable
    // before the head names it; the head is replaced through its spare
    // (`store::spare`: no inode freed a resolution).
    super::spare::commit(dir, &head_path(dir), text.as_bytes())
}

/// Stage and commit in one go (moderator entries, undo).
pub fn append(dir: &GameDir, draft: &Draft) -> Result<EntryInfo> {
    let (info, _) = stage(dir, draft)?;
    commit(dir, &info)?;
    Ok(info)
}

/// Remove leftovers of an interrupted write: `.tmp-*` directories and
/// entries beyond the head. Returns what was removed.
pub fn discard_uncommitted(dir: &GameDir) -> Result<Vec<String>> {
    let head = read_head(dir)?;
    let mut removed = Vec::new();
    let h = dir.history();
    if !h.is_dir() {
        return Ok(removed);
    }
    for e in fs::read_dir(&h).with_context(|| format!("cannot read {}", h.display()))? {
        let e = e?;
        let name = e.file_name().to_string_lossy().to_string();
        let stale_tmp = name.starts_with(".tmp-");
        let beyond = name
            .get(..4)
            .and_then(|d| d.parse::<u32>().ok())
            .is_some_and(|n| n > head.entries);
        if (stale_tmp || beyond) && is_dir(&e) {
            fs::remove_dir_all(e.path()).with_context(|| format!("cannot remove {}", e.path().display()))?;
            removed.push(name);
        }
    }
    if !removed.is_empty() {
        sync_dir(&h);
    }
    removed.sort();
    Ok(removed)
}

fn check_rel(rel: &str) -> Result<()> {
    let p = Path::new(rel);
    let ok =
        !rel.is_empty() && rel != "entry.toml" && p.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    if !ok {
        bail!("'{rel}' cannot be a file of a history entry");
    }
    Ok(())
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    if let Some(d) = path.parent() {
        fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    let mut f = fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    f.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    super::durable::file_written(path, &f)
}

/// The anchor lines every mail of the game ends with (docs/dice.md,
/// "Anchors"): the chain head and the open phase's commitment, after a
/// signature separator so that replies leave them out. Empty when the
/// directory holds no game (no `phase/commitment`).
pub fn anchors(dir: &GameDir) -> Result<String> {
    let Some(rec) = super::phase::record(dir)? else {
        return Ok(String::new());
    };
    let head = read_head(dir)?;
    Ok(format!(
        "\n-- \nAnchors (keep this mail; `empereur verify --mails` checks them):\n{CHAIN} {g} {}\n  {}\n{COMMITMENT} {g} {}\n  {}\n",
        head.entries,
        head.head,
        rec.phase,
        rec.commitment,
        g = rec.game
    ))
}

/// The anchor lines of a turn report: the entry it reports and, for a
/// resolution, its revealed seed.
pub fn entry_anchors(dir: &GameDir, name: &str) -> Result<String> {
    if !entry_dir(dir, name).join("entry.toml").is_file() {
        return Ok(String::new());
    }
    let (rec, bytes) = read_entry(dir, name)?;
    let mut s = format!("{ENTRY} {} {name}\n  {}\n", rec.game, sha256_hex(&bytes));
    if rec.commitment.is_some() {
        let seed = read_text(&entry_dir(dir, name).join("seed"))?;
        s.push_str(&format!("{SEED} {} {}\n  {}\n", rec.game, rec.phase, seed.trim()));
    }
    Ok(s)
}

/// Anchor keywords (docs/dice.md, "Anchors"): `Empereur-Chain: <game>
/// <entries>`, `Empereur-Commitment: <game> <phase>`, `Empereur-Entry:
/// <game> <entry directory>`, `Empereur-Seed: <game> <phase>`, each
/// followed by an indented line with the hash, commitment or seed (mail
/// lines stay short).
pub const CHAIN: &str = "Empereur-Chain:";
pub const COMMITMENT: &str = "Empereur-Commitment:";
pub const ENTRY: &str = "Empereur-Entry:";
pub const SEED: &str = "Empereur-Seed:";

/// A power's copy of a dice log (`dice.toml` bytes): only the rolls that
/// outcomes it may see cite, with the same visibility as the outcomes.
/// The history keeps the whole log for `verify`; the moderator gets it all.
pub fn dice_log_for(log: &[u8], outcomes: &[Outcome], power: PowerId) -> Result<Vec<u8>> {
    let text = std::str::from_utf8(log).context("the dice log is not UTF-8")?;
    let all: DiceLog = toml::from_str(text).map_err(|e| anyhow::anyhow!("dice.toml: {}", e.message().trim()))?;
    let seen: std::collections::BTreeSet<&str> = outcomes
        .iter()
        .filter(|o| o.visibility.sees(power))
        .flat_map(|o| o.dice.iter().map(|d| d.purpose.as_str()))
        .collect();
    let mine = DiceLog {
        rolls: all
            .rolls
            .into_iter()
            .filter(|r| seen.contains(r.purpose.as_str()))
            .collect(),
    };
    Ok(super::to_toml(&mine).context("serialising a dice log")?.into_bytes())
}

/// Plain-text render of a phase's outcomes (the moderator's view; the
/// per-power reports are the report module's).
pub fn render_report(game: &str, phase: PhaseId, outcomes: &[Outcome], rolls: &[Roll]) -> String {
    let mut s = format!("Game {game}, phase {phase}: {} outcome(s)\n", outcomes.len());
    for o in outcomes {
        let who = o.power.map(|p| format!(" [{}]", p.id())).unwrap_or_default();
        s.push_str(&format!("\n{} ({}){who}: {}\n", o.kind, o.rule, o.summary));
        if let Some(order) = &o.order {
            s.push_str(&format!("  order: {order}\n"));
        }
        for w in &o.why {
            s.push_str(&format!("  why: {w}\n"));
        }
        for d in &o.dice {
            s.push_str(&format!("  die: {} = {}\n", d.purpose, d.result));
        }
    }
    s.push_str(&format!("\nDice: {} roll(s)\n", rolls.len()));
    for r in rolls {
        s.push_str(&format!("  {} d{} = {} ({})\n", r.purpose, r.sides, r.result, r.source));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::RollSource;
    use crate::rules::Kind;

    #[test]
    fn the_history_lists_entry_directories_and_discards_only_directories() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = GameDir::new(tmp.path());
        let h = dir.history();
        fs::create_dir_all(h.join("0001-1805-spring")).unwrap();
        fs::create_dir_all(tmp.path().join("elsewhere")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(tmp.path().join("elsewhere"), h.join("0002-1805-summer")).unwrap();
        fs::write(h.join("0003-not-a-dir"), "").unwrap();
        fs::create_dir_all(h.join(".tmp-0004-x")).unwrap();
        fs::write(h.join(".tmp-0005-file"), "").unwrap();
        let listed: Vec<String> = list(&dir).unwrap().into_values().collect();
        #[cfg(unix)]
        assert_eq!(listed, ["0001-1805-spring", "0002-1805-summer"]);
        // No head: every numbered directory is beyond it.
        let removed = discard_uncommitted(&dir).unwrap();
        #[cfg(unix)]
        assert_eq!(removed, [".tmp-0004-x", "0001-1805-spring", "0002-1805-summer"]);
        assert!(h.join("0003-not-a-dir").is_file() && h.join(".tmp-0005-file").is_file());
    }

    #[test]
    fn a_powers_dice_log_holds_only_the_rolls_of_outcomes_it_sees() {
        let roll = |p: &str| Roll {
            purpose: p.into(),
            sides: 10,
            result: 4,
            source: RollSource::Committed,
        };
        let log = DiceLog {
            rolls: vec![
                roll("land-battle/ulm/1/round-1/attacker"),
                roll("events/1805-fall/russia/rebellion"),
                roll("uncited"),
            ],
        };
        let bytes = toml::to_string(&log).unwrap().into_bytes();
        let outcomes = vec![
            Outcome::new("4.2", Kind::Battle, "Ulm").die("land-battle/ulm/1/round-1/attacker", 4),
            Outcome::new("4.72", Kind::Event, "a rebellion")
                .die("events/1805-fall/russia/rebellion", 4)
                .only(vec![PowerId::Russia]),
        ];
        let read = |p| -> Vec<String> {
            let l: DiceLog =
                toml::from_str(std::str::from_utf8(&dice_log_for(&bytes, &outcomes, p).unwrap()).unwrap()).unwrap();
            l.rolls.into_iter().map(|r| r.purpose).collect()
        };
        assert_eq!(read(PowerId::France), vec!["land-battle/ulm/1/round-1/attacker"]);
        assert_eq!(
            read(PowerId::Russia),
            vec![
                "land-battle/ulm/1/round-1/attacker",
                "events/1805-fall/russia/rebellion"
            ]
        );
    }
}
