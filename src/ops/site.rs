//! `empereur site`: write a game's public site (docs/site.md). Reads the
//! history, the press archive and the journal, cuts each to what every
//! power may see, and hands them to [`crate::site::build`]; then writes
//! the files, each replaced in one step, so a host serving the directory
//! while `run` refreshes it never serves half a file.
#![allow(clippy::disallowed_methods)] // adapter

use crate::ids::PowerId;
use crate::picture::Scene;
use crate::report::{EventView, TurnReportView};
use crate::rules::outcome::Outcome;
use crate::scenario::Scenario;
use crate::site::{self, EntryInput, Input, PhasePage, PublicPress};
use crate::state::State;
use crate::store::history::{self, EntryRecord, OutcomesFile};
use crate::store::{GameDir, phase};
use anyhow::{Context, Result};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct SiteArgs {
    /// The game directory.
    pub game: PathBuf,
    /// The directory to write the site into (created if missing).
    pub out: PathBuf,
}

/// What `empereur site` wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub out: PathBuf,
    pub files: usize,
    pub entries: usize,
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "wrote {} ({} file(s), {} history entr{}); open {}",
            self.out.display(),
            self.files,
            self.entries,
            if self.entries == 1 { "y" } else { "ies" },
            self.out.join("index.html").display()
        )
    }
}

impl super::Summary for Written {}

pub fn run(a: &SiteArgs) -> Result<Written> {
    let dir = GameDir::new(&a.game);
    let input = {
        let _lock = dir.lock()?;
        read(&dir)?
    };
    let files = site::build(&input)?;
    write_all(&a.out, &files)?;
    Ok(Written {
        out: a.out.clone(),
        files: files.len(),
        entries: input.entries.len(),
    })
}

/// Refresh the site `[site] out` of game.toml names, if any, under the
/// game's lock the caller holds (`run`, after each phase it resolves).
/// A site that cannot be written is a line for the moderator, never a
/// reason to stop the run: the game goes on without it.
pub fn refresh_locked(dir: &GameDir) -> Option<String> {
    let out = dir.load_config().ok()?.site.out?;
    let out = dir.root.join(out);
    let written = read(dir).and_then(|input| write_all(&out, &site::build(&input)?));
    written
        .err()
        .map(|e| format!("site {} not refreshed: {e:#}", out.display()))
}

/// Everything the site is made from, read from the game directory.
pub fn read(dir: &GameDir) -> Result<Input> {
    let config = dir.load_config()?;
    let scenario = dir.load_scenario(&config)?;
    let state_bytes = fs::read(dir.state()).ok();
    let state = match &state_bytes {
        Some(b) => Some(State::from_toml(&String::from_utf8_lossy(b)).map_err(|e| anyhow::anyhow!("state.toml: {e}"))?),
        None => None,
    };
    let ended = state.as_ref().is_some_and(|s| s.over.is_some());
    let mut input = Input {
        game: config.game.clone(),
        ended,
        open_phase: state.as_ref().filter(|_| !ended).map(|s| s.phase.to_string()),
        head: fs::read(history::head_path(dir)).ok(),
        commitment: fs::read(phase::commitment_path(dir)).ok(),
        state_sha256: state_bytes.as_deref().map(history::sha256_hex),
        ..Input::default()
    };
    // The genesis entry (entry 0, docs/dice.md 1a) first, as export-history.
    for (name, paths) in history::committed_files(dir)? {
        let mut entry = EntryInput {
            dir: name,
            files: Vec::new(),
        };
        for (rel, p) in paths {
            let bytes = fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
            entry.files.push((rel, bytes));
        }
        input.entries.push(entry);
    }
    input.pages = pages(&scenario, &input.entries);
    let players: BTreeSet<PowerId> = config.players.iter().map(|p| p.power).collect();
    input.press = press(dir, &players)?;
    input.journal = journal(dir)?;
    Ok(input)
}

/// The public page of each entry, in order. Parsing the states and
/// drawing the maps are most of a site's work and each entry's page is
/// its own: the entries are cut into one run of consecutive entries for
/// each core, each run on a thread of its own.
fn pages(scenario: &Scenario, entries: &[EntryInput]) -> Vec<PhasePage> {
    // The map itself is drawn once; each phase's picture on it.
    let fixed = crate::picture::has_geometry(&scenario.map)
        .then(|| crate::picture::Fixed::new(scenario).ok())
        .flatten();
    let run = |entries: &[EntryInput]| {
        // The state after one entry is usually the state before the next:
        // parsed once.
        let mut last: Option<(Vec<u8>, State)> = None;
        entries
            .iter()
            .map(|e| page(scenario, fixed.as_ref(), e, &mut last))
            .collect::<Vec<_>>()
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_run = entries.len().div_ceil(cores).max(16);
    if per_run >= entries.len() {
        return run(entries);
    }
    std::thread::scope(|s| {
        let runs: Vec<_> = entries.chunks(per_run).map(|c| s.spawn(|| run(c))).collect();
        runs.into_iter()
            .flat_map(|r| r.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The public page of one entry: the outcomes every power sees, the
/// standings and the map of the state after it, as no power in particular
/// sees them (2.5: compositions are nobody's but their owner's).
fn page(
    scenario: &Scenario,
    fixed: Option<&crate::picture::Fixed<'_>>,
    entry: &EntryInput,
    last: &mut Option<(Vec<u8>, State)>,
) -> PhasePage {
    let bytes = |rel: &str| entry.files.iter().find(|(r, _)| r == rel).map(|(_, b)| b.as_slice());
    let file = |rel: &str| bytes(rel).map(|b| String::from_utf8_lossy(b).into_owned());
    let record: Option<EntryRecord> = file("entry.toml").and_then(|t| toml::from_str(&t).ok());
    let outcomes: Vec<Outcome> = file("outcomes.toml")
        .and_then(|t| toml::from_str::<OutcomesFile>(&t).ok())
        .map(|o| o.outcomes)
        .unwrap_or_default();
    let public: Vec<Outcome> = site::privacy::public_outcomes(&outcomes);
    let parse = |b: &[u8]| {
        State::from_toml(&String::from_utf8_lossy(b))
            .ok()
            .map(|s| s.public_view())
    };
    let before = bytes("state-before.toml").and_then(|b| match last {
        Some((l, s)) if l.as_slice() == b => Some(s.clone()),
        _ => parse(b),
    });
    let after = bytes("state-after.toml").and_then(|b| {
        let s = parse(b)?;
        *last = Some((b.to_vec(), s.clone()));
        Some(s)
    });
    let standings = after.as_ref().map(site::public_standings).unwrap_or_default();
    let phase = record.as_ref().map(|r| r.phase.to_string()).unwrap_or_default();
    let map = after.as_ref().zip(fixed).and_then(|(s, fixed)| {
        Scene::new(scenario, s, before.as_ref(), &public, None, &phase)
            .svg_on(fixed)
            .ok()
    });
    PhasePage {
        dir: entry.dir.clone(),
        kind: record.as_ref().map(|r| r.kind.clone()).unwrap_or_default(),
        note: record.map(|r| r.note).unwrap_or_default(),
        phase,
        events: TurnReportView::events_for(&public, None)
            .into_iter()
            .collect::<Vec<EventView>>(),
        standings,
        map,
    }
}

/// Press sent to every player (`PRESS TO ALL`, or every player named):
/// the sender's name only when it signed.
fn press(dir: &GameDir, players: &BTreeSet<PowerId>) -> Result<Vec<PublicPress>> {
    #[derive(serde::Deserialize)]
    struct Archived {
        phase: String,
        from: PowerId,
        anonymous: bool,
        to: Vec<String>,
        text: String,
    }
    let root = dir.root.join("press");
    let mut names = Vec::new();
    if root.is_dir() {
        for e in fs::read_dir(&root).with_context(|| format!("cannot read {}", root.display()))? {
            names.push(e?.path());
        }
    }
    names.sort();
    let mut out = Vec::new();
    for p in names {
        let Ok(text) = fs::read_to_string(&p) else { continue };
        let Ok(a) = toml::from_str::<Archived>(&text) else {
            continue;
        };
        let others = players.iter().filter(|q| **q != a.from).map(|q| q.name());
        if !site::privacy::press_is_public(others, &a.to) {
            continue;
        }
        out.push(PublicPress {
            phase: a.phase,
            from: (!a.anonymous).then(|| a.from.name().to_string()),
            text: a.text,
        });
    }
    Ok(out)
}

/// The journal lines that record a moderator's decision every player is
/// told of anyway (a resolution, an undo, a deadline moved, a pause, a
/// preview). Lines about mail, submissions and seats are left out: they
/// name addresses or come before the lock that announces them.
fn journal(dir: &GameDir) -> Result<Vec<String>> {
    const PUBLIC: &[&str] = &[
        "resolve ",
        "moderator undid ",
        "moderator extended ",
        "moderator paused ",
        "moderator resumed ",
        "preview ",
    ];
    let text = match fs::read_to_string(dir.journal()) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.journal().display())),
    };
    Ok(text
        .lines()
        .filter(|l| {
            let what = l.split_once(' ').map(|(_, w)| w).unwrap_or("");
            PUBLIC.iter().any(|p| what.starts_with(p)) && !l.contains('@')
        })
        .map(str::to_string)
        .collect())
}

/// Write every file under `out`, each through a temporary file renamed
/// over it; a file whose bytes are already there is left alone.
pub fn write_all(out: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
    for (rel, bytes) in files {
        let path = out.join(rel);
        if fs::read(&path).is_ok_and(|old| &old == bytes) {
            continue;
        }
        let parent = path.parent().unwrap_or(out);
        fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        let tmp = parent.join(format!(
            ".{}.tmp",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("site")
        ));
        fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
        fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
