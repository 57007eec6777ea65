//! The moderator's corrections in the open: `undo` rolls back the last
//! resolution as an entry in the hash chain (revealing the abandoned
//! phase's seed and reopening the phase under its own seed and
//! commitment, so it never re-rolls); `preview` resolves a scratch copy
//! with a throwaway seed, for the moderator's eyes only.
#![allow(clippy::disallowed_methods)] // adapter

use super::resolve::{ResolveOptions, Resolved, record_undo, resolve_game_with};
use super::{Done, clock};
use crate::state::State;
use crate::store::{self, GameDir, history, phase};
use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct UndoArgs {
    /// The game directory.
    pub game: PathBuf,
    /// Why (recorded in the history and told to the players).
    pub reason: String,
}

#[derive(Debug, Clone)]
pub struct PreviewArgs {
    /// The game directory (never changed, except that the preview is
    /// counted and journalled).
    pub game: PathBuf,
}

/// What an undo did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undone {
    /// The history entry whose resolution was rolled back.
    pub undone: String,
    /// The new history entry recording the rollback.
    pub entry: String,
    /// The phase reopened.
    pub phase: String,
    /// Orders restored from the undone entry, by power.
    pub restored: Vec<String>,
}

/// What `empereur undo` did: the undo, or nothing to undo (a "no").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoRun(pub Option<Undone>);

impl std::fmt::Display for UndoRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(u) = &self.0 else {
            return writeln!(f, "nothing to undo: no resolution produced the current state");
        };
        writeln!(
            f,
            "rolled back {} (recorded as history/{}); phase {} is open again under its own seed and commitment (same dice for the same purposes)",
            u.undone, u.entry, u.phase
        )?;
        if !u.restored.is_empty() {
            writeln!(f, "orders restored for: {}", u.restored.join(", "))?;
        }
        Ok(())
    }
}

impl super::Summary for UndoRun {
    fn done(&self) -> Done {
        if self.0.is_some() { Done::Yes } else { Done::No }
    }
}

pub fn undo(a: &UndoArgs) -> Result<UndoRun> {
    let dir = GameDir::new(&a.game);
    let undone = undo_game(&dir, &a.reason)?;
    if undone.is_some() {
        super::workflow::start_clock_now(&dir)?;
    }
    Ok(UndoRun(undone))
}

/// Roll back the resolution that produced the current state. `None` when
/// there is none (a new game, or the state came from another action).
pub fn undo_game(dir: &GameDir, reason: &str) -> Result<Option<Undone>> {
    if reason.trim().is_empty() {
        bail!("undo needs a --reason for the players");
    }
    let _lock = dir.lock()?;
    super::resolve::recover(dir)?;
    let current = fs::read(dir.state()).with_context(|| format!("cannot read {}", dir.state().display()))?;
    // The last resolve entry whose state-after is the current state (after
    // an undo, that is the resolution before the one undone).
    let entries = history::list(dir)?;
    let mut found = None;
    for name in entries.values().rev() {
        let (rec, _) = history::read_entry(dir, name)?;
        if rec.kind != "resolve" {
            continue;
        }
        let edir = history::entry_dir(dir, name);
        let after = fs::read(edir.join("state-after.toml")).unwrap_or_default();
        if after == current {
            found = Some((name.clone(), edir));
            break;
        }
    }
    let Some((name, edir)) = found else { return Ok(None) };
    let before_text = store::read_text(&edir.join("state-before.toml"))?;
    let before = State::from_toml(&before_text).map_err(|e| anyhow::anyhow!("{}: {e}", edir.display()))?;
    let mut files = std::collections::BTreeMap::new();
    files.insert("reason.txt".to_string(), format!("{}\n", reason.trim()).into_bytes());
    let note = format!("rolled back {name}: {}", reason.trim());
    let info = record_undo(dir, &name, &note, &before, files)?;
    // The undone phase's orders stand again; players may replace them.
    let mut restored = Vec::new();
    let orders = edir.join("orders");
    if orders.is_dir() {
        for e in fs::read_dir(&orders)? {
            let p = e?.path();
            if let Some(file) = p.file_name().and_then(|f| f.to_str())
                && file.ends_with(".toml")
            {
                store::atomic_write(&dir.phase_orders().join(file), &fs::read(&p)?)?;
                restored.push(file.trim_end_matches(".toml").to_string());
            }
        }
    }
    restored.sort();
    let now = clock::now()?;
    // The players are told by the mail of this entry (ops::mailing), in
    // its place after the reports of the entries before it.
    dir.journal_line(
        &clock::stamp(now),
        &format!(
            "moderator undid {name} ({}); phase {} reopened as history/{}",
            reason.trim(),
            before.phase,
            info.name
        ),
    )?;
    Ok(Some(Undone {
        undone: name,
        entry: info.name,
        phase: before.phase.to_string(),
        restored,
    }))
}

/// The first line of every preview: the dice are not the real ones.
pub const PREVIEW_BANNER: &str = "PREVIEW WITH A THROWAWAY SEED: these dice are not the phase's real dice, which nobody can see before the orders lock.";

impl std::fmt::Display for Preview {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{PREVIEW_BANNER}")?;
        write!(f, "{}", self.report)?;
        writeln!(
            f,
            "\npreview of {} with throwaway seed {} (the game is untouched; nothing was mailed; the scratch copy is deleted)",
            self.phase, self.seed
        )
    }
}

impl super::Summary for Preview {}

pub fn preview(a: &PreviewArgs) -> Result<Preview> {
    preview_game(&GameDir::new(&a.game))
}

/// Resolve a copy of the game with a throwaway seed: returns the resolved
/// phase and the plain-text report. The copy lives in a new temporary
/// directory (mode 0700) removed before returning, and never holds the
/// real seed, so the real dice cannot be seen, and a preview cannot be
/// repeated until the real dice please. The game is only read, except
/// that the preview is recorded as a `preview` entry of the history (so
/// deleting the record breaks the hash chain; the resolution's entry says
/// how many were run) and journalled.
pub fn preview_game(dir: &GameDir) -> Result<Preview> {
    preview_game_with(dir, crate::rules::resolve)
}

/// What a preview showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preview {
    /// The phase previewed.
    pub phase: String,
    /// The moderator's plain-text report of the previewed resolution.
    pub report: String,
    /// The throwaway seed (hex) the preview rolled with.
    pub seed: String,
}

/// As [`preview_game`] with another engine (tests).
pub fn preview_game_with(dir: &GameDir, engine: super::resolve::Engine) -> Result<Preview> {
    let scratch = tempfile::Builder::new().prefix("empereur-preview-").tempdir()?;
    let copy = GameDir::new(scratch.path().join("game"));
    {
        // Copy under the lock, so the copy is of one consistent phase.
        let _lock = dir.lock()?;
        super::resolve::recover(dir)?;
        copy_dir(&dir.root, &copy.root)?;
        let state = dir.load_state()?;
        let n = record_preview(dir, &state)?;
        dir.journal_line(
            &clock::stamp(clock::now()?),
            &format!(
                "preview {} with a throwaway seed (preview {n} of this phase)",
                state.phase
            ),
        )?;
    }
    copy.create_layout()?;
    let state = copy.load_state()?;
    let throwaway = phase::draw_seed()?;
    phase::open_with_seed(&copy, &state, &throwaway, None)?;
    let out = match resolve_game_with(&copy, &ResolveOptions::default(), engine)? {
        Resolved::Done(s) => {
            let report = store::read_text(&history::entry_dir(&copy, &s.entry).join("report.txt"))?;
            Ok(Preview {
                phase: s.resolved.to_string(),
                report,
                seed: crate::dice::to_hex(&throwaway),
            })
        }
        Resolved::Refused(why) => Err(anyhow::anyhow!("cannot preview: {why}")),
    };
    scratch.close().context("cannot remove the preview's scratch copy")?;
    out
}

/// docs/dice.md 9: a preview of the open phase is a `preview` entry of the
/// history (no files, no commitment), chained like every entry; returns
/// how many previews of the phase there are with it.
fn record_preview(dir: &GameDir, state: &crate::state::State) -> Result<u32> {
    let n = super::resolve::previews_since_open(dir)? + 1;
    let mut d = history::Draft::new(super::resolve::PREVIEW, &state.game, state.phase);
    d.note = format!("preview {n} of {} with a throwaway seed", state.phase);
    history::append(dir, &d)?;
    Ok(n)
}

/// Copy a game directory, leaving out its mail, lock, journal and every
/// secret seed.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for e in fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))? {
        let e = e?;
        let name = e.file_name();
        if name == "mail"
            || name == ".lock"
            || name == "journal.log"
            || name == "seed"
            || name == "next-seed"
            || name == "seed-chain"
        {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if e.file_type()?.is_dir() {
            copy_dir(&src, &dst)?;
        } else if e.file_type()?.is_file() {
            fs::copy(&src, &dst).with_context(|| format!("cannot copy {}", src.display()))?;
        }
    }
    Ok(())
}
