//! The moderator's corrections in the open: `undo` rolls back the last
//! resolution as an entry in the hash chain (revealing the abandoned
//! phase's seed and reopening under a new commitment); `preview` resolves
//! a scratch copy for the moderator's eyes only.
#![allow(clippy::disallowed_methods)] // adapter

use super::resolve::{ResolveOptions, Resolved, record_state_change, resolve_game};
use super::{Done, clock};
use crate::state::State;
use crate::store::{self, GameDir, history};
use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug, Clone)]
#[command(
    after_help = "Example:\n  empereur undo --game campaign --reason \"Austria's orders were entered for the wrong corps\""
)]
pub struct UndoArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// Why (recorded in the history and told to the players).
    #[arg(long)]
    pub reason: String,
}

#[derive(clap::Args, Debug, Clone)]
#[command(after_help = "Example:\n  empereur preview --game campaign")]
pub struct PreviewArgs {
    /// The game directory (never changed).
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// Where to put the scratch copy (default: a new temporary directory).
    #[arg(long)]
    pub out: Option<PathBuf>,
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

pub fn undo(a: &UndoArgs) -> Result<Done> {
    let dir = GameDir::new(&a.game);
    match undo_game(&dir, &a.reason)? {
        Some(u) => {
            super::workflow::start_clock_now(&dir)?;
            println!(
                "rolled back {} (recorded as history/{}); phase {} is open again under a new commitment",
                u.undone, u.entry, u.phase
            );
            if !u.restored.is_empty() {
                println!("orders restored for: {}", u.restored.join(", "));
            }
            Ok(Done::Yes)
        }
        None => {
            println!("nothing to undo: no resolution produced the current state");
            Ok(Done::No)
        }
    }
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
    let info = record_state_change(dir, "undo", &note, &before, files)?;
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

pub fn preview(a: &PreviewArgs) -> Result<Done> {
    let dir = GameDir::new(&a.game);
    let scratch = match &a.out {
        Some(d) => d.clone(),
        None => tempfile::Builder::new().prefix("empereur-preview-").tempdir()?.keep(),
    };
    let (summary, report) = preview_game(&dir, &scratch)?;
    print!("{report}");
    println!(
        "\npreview of {summary} in {} (the game itself is untouched; nothing was mailed)",
        scratch.display()
    );
    Ok(Done::Yes)
}

/// Resolve a copy of the game in `scratch` (which must not hold a game):
/// returns the resolved phase and the plain-text report. The game is
/// only read; mail is neither copied nor sent.
pub fn preview_game(dir: &GameDir, scratch: &Path) -> Result<(String, String)> {
    let copy = GameDir::new(scratch.join("game"));
    if copy.exists() {
        bail!("{} already holds a game", copy.root.display());
    }
    {
        // Copy under the lock, so the copy is of one consistent phase.
        let _lock = dir.lock()?;
        copy_dir(&dir.root, &copy.root)?;
    }
    copy.create_layout()?;
    match resolve_game(&copy, &ResolveOptions::default())? {
        Resolved::Done(s) => {
            let report = store::read_text(&history::entry_dir(&copy, &s.entry).join("report.txt"))?;
            Ok((s.resolved.to_string(), report))
        }
        Resolved::Refused(why) => bail!("cannot preview: {why}"),
    }
}

/// Copy a game directory, leaving out its mail and lock.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for e in fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))? {
        let e = e?;
        let name = e.file_name();
        if name == "mail" || name == ".lock" || name == "journal.log" {
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
