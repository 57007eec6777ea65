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
use crate::site::{self, EntryFile, EntryInput, Input, PhasePage, PublicPress, STATE_AFTER, STATE_BEFORE, SiteFile};
use crate::state::State;
use crate::store::history::{self, EntryRecord, OutcomesFile};
use crate::store::{GameDir, phase};
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
            entry.files.push(EntryFile {
                rel,
                bytes,
                stored: Some(p),
                digest: Default::default(),
            });
        }
        input.entries.push(entry);
    }
    input.pages = pages(&scenario, &input.entries, &PageCache::new(dir, &config));
    let players: BTreeSet<PowerId> = config.players.iter().map(|p| p.power).collect();
    input.press = press(dir, &players)?;
    input.journal = journal(dir)?;
    Ok(input)
}

/// The public page of each entry, in order: from the public pages the
/// resolution wrote where one is the entry's, else from the cache of
/// pages, else made (and cached). Parsing the states and drawing the maps
/// are most of a site's work and each entry's page is its own: the
/// entries are cut into one run of consecutive entries for each core,
/// each run on a thread of its own.
fn pages(scenario: &Scenario, entries: &[EntryInput], cache: &PageCache) -> Vec<PhasePage> {
    // The map itself is drawn once, if a page needs it; each phase's
    // picture on it.
    let fixed = std::sync::OnceLock::new();
    let fixed = || {
        fixed
            .get_or_init(|| {
                crate::picture::has_geometry(&scenario.map)
                    .then(|| crate::picture::Fixed::new(scenario).ok())
                    .flatten()
            })
            .as_ref()
    };
    // Each entry's page, its keys, and its bytes for the cache if it was
    // made now.
    let run = |entries: &[EntryInput]| {
        // The state after one entry is usually the state before the next:
        // parsed once.
        let mut last: Option<(Vec<u8>, State)> = None;
        // The state after the entry before: the state before this one is
        // usually the same bytes, whose digest is then not computed again.
        let mut after: Option<&EntryFile> = None;
        entries
            .iter()
            .map(|e| {
                if let (Some(a), Some(b)) = (after, e.file(STATE_BEFORE))
                    && a.bytes == b.bytes
                {
                    let _ = b.digest.set(a.sha256());
                }
                after = e.file(STATE_AFTER);
                let content = content_digest(|rel| e.file(rel).map(EntryFile::sha256));
                let public = cache.public_key(&content);
                if let Some(page) = cache
                    .public
                    .get_shared(&e.dir, &public)
                    .and_then(|(b, r)| page_from(e, b, r, Some(&cache.public_maps(&public))))
                {
                    return (page, public, None, None);
                }
                let key = cache.key(&content);
                if let Some(page) = key.as_deref().and_then(|k| cache.get(e, k)) {
                    return (page, public, key, None);
                }
                let page = page(scenario, fixed(), e, &mut last);
                let made = key.as_ref().and_then(|_| page_bytes(&page, false));
                (page, public, key, made)
            })
            .collect::<Vec<_>>()
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_run = entries.len().div_ceil(cores).max(16);
    let results: Vec<_> = if per_run >= entries.len() {
        run(entries)
    } else {
        std::thread::scope(|s| {
            let runs: Vec<_> = entries.chunks(per_run).map(|c| s.spawn(|| run(c))).collect();
            runs.into_iter()
                .flat_map(|r| r.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    };
    let mut pages = Vec::with_capacity(results.len());
    let mut keys = Vec::with_capacity(results.len());
    let mut publics = Vec::with_capacity(results.len());
    let mut new = Vec::new();
    for (e, (page, public, key, bytes)) in entries.iter().zip(results) {
        if let (Some(k), Some(b)) = (&key, bytes) {
            new.push((e.dir.clone(), k.clone(), b));
        }
        pages.push(page);
        keys.push(key);
        publics.push(public);
    }
    let now: HashMap<&str, &str> = entries
        .iter()
        .zip(&keys)
        .filter_map(|(e, k)| Some((e.dir.as_str(), k.as_deref()?)))
        .collect();
    cache.pages.save(&new, &now);
    // A public file cut short (a crash while the resolution appended):
    // written again whole, so that the resolution's next pages are read.
    let now: HashMap<&str, &str> = entries
        .iter()
        .zip(&publics)
        .map(|(e, k)| (e.dir.as_str(), k.as_str()))
        .collect();
    cache.public.save(&[], &now);
    pages
}

/// The files of an entry its page is made from ([`page`] reads no other).
const PAGE_FILES: [&str; 4] = ["entry.toml", "outcomes.toml", STATE_BEFORE, STATE_AFTER];

/// The digest of an entry's [`PAGE_FILES`], from the SHA-256 of each as
/// `sha256` gives it (`None`: the entry has no such file).
fn content_digest(sha256: impl Fn(&str) -> Option<[u8; 32]>) -> [u8; 32] {
    let mut h = Sha256::new();
    for rel in PAGE_FILES {
        match sha256(rel) {
            Some(d) => {
                h.update([1]);
                h.update(d);
            }
            None => h.update([0]),
        }
    }
    h.finalize().into()
}

/// Bump when what a page holds, or how it is drawn, changes: the public
/// pages the resolution wrote before are made again.
const PUBLIC_FORMAT: &str = "empereur public page 2";

/// The key of an entry's page among the public pages: the format, the
/// scenario and the entry's [`PAGE_FILES`] (not the program: the pages
/// were written by whichever program resolved the phase).
fn public_key(scenario: &[u8], content: &[u8; 32]) -> String {
    let mut h = Sha256::new();
    h.update(PUBLIC_FORMAT);
    h.update([0]);
    h.update(scenario);
    h.update([0]);
    h.update(content);
    hex::encode(h.finalize())
}

/// The pages already made (`store::site_cache`), each under a key that
/// digests everything it was made from: the program that made it (its
/// executable's identity: another build may draw otherwise), the
/// scenario, and the bytes of the entry's [`PAGE_FILES`]. An entry whose
/// history file changed, or made by another program, has another key and
/// is made again. Beside them, the public pages the resolution wrote
/// (keyed without the program).
struct PageCache {
    /// The digest of the program and the scenario, fed first into every
    /// key; `None` (the program cannot name its executable): no cache.
    made_by: Option<Sha256>,
    /// The scenario's identity ([`scenario_identity`]).
    scenario: Vec<u8>,
    /// The pages kept (`store::site_cache`).
    pages: crate::store::site_cache::Pages,
    /// The public pages the resolution wrote.
    public: crate::store::site_cache::Pages,
    /// The game, whose `public-maps/` hold the maps of those pages.
    game: GameDir,
}

/// What a kept page holds but its map and the entry's directory: one
/// line of JSON, then the map's SVG text as it is (in JSON, most of the
/// bytes would be escaped and unescaped).
#[derive(serde::Serialize, serde::Deserialize)]
struct CachedPage {
    phase: String,
    kind: String,
    note: String,
    events: Vec<EventView>,
    standings: Vec<site::Standing>,
    map: bool,
    /// The map is not in the record but in the file of its own the caller
    /// names (the resolution's pages: `site_cache::public_map`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    map_apart: bool,
}

/// The page of `entry` kept as the part `range` of `file` ([`page_bytes`]);
/// `None` if it cannot be read. Its map is not copied out of `file`; a map
/// kept apart is read from `apart`, which the site's copy may then be.
fn page_from(entry: &EntryInput, file: &Arc<Vec<u8>>, range: Range<usize>, apart: Option<&Path>) -> Option<PhasePage> {
    let bytes = file.get(range.clone())?;
    // serde_json writes no newline: the first ends the JSON
    let (json, svg) = match bytes.iter().position(|b| *b == b'\n') {
        Some(i) => (&bytes[..i], Some(range.start + i + 1..range.end)),
        None => (bytes, None),
    };
    let c: CachedPage = serde_json::from_slice(json).ok()?;
    let map = match (c.map, c.map_apart, svg) {
        (true, false, Some(svg)) => Some(site::Svg::shared(file, svg)?),
        (true, true, None) => Some(site::Svg::Stored(apart.filter(|p| p.is_file())?.to_path_buf())),
        (false, false, None) => None,
        _ => return None,
    };
    Some(PhasePage {
        dir: entry.dir.clone(),
        phase: c.phase,
        kind: c.kind,
        note: c.note,
        events: c.events,
        standings: c.standings,
        map,
    })
}

/// What is kept of `page` (`None`: it cannot be written); its map after
/// the record's JSON, or `apart` (written by the caller elsewhere).
fn page_bytes(page: &PhasePage, apart: bool) -> Option<Vec<u8>> {
    /// [`CachedPage`], borrowed from the page.
    #[derive(serde::Serialize)]
    struct Out<'p> {
        phase: &'p str,
        kind: &'p str,
        note: &'p str,
        events: &'p [EventView],
        standings: &'p [site::Standing],
        map: bool,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        map_apart: bool,
    }
    let apart = apart && page.map.is_some();
    let mut bytes = serde_json::to_vec(&Out {
        phase: &page.phase,
        kind: &page.kind,
        note: &page.note,
        events: &page.events,
        standings: &page.standings,
        map: page.map.is_some(),
        map_apart: apart,
    })
    .ok()?;
    if let Some(svg) = page.map.as_ref().filter(|_| !apart) {
        bytes.push(b'\n');
        bytes.extend_from_slice(svg.as_bytes()?);
    }
    Some(bytes)
}

impl PageCache {
    /// Bump when what a cached page holds changes shape.
    const FORMAT: &'static str = "empereur site page 3";

    fn new(dir: &GameDir, config: &crate::store::GameConfig) -> PageCache {
        let scenario = scenario_identity(dir, config);
        let made_by = program_identity().map(|program| {
            let mut h = Sha256::new();
            h.update(Self::FORMAT);
            h.update([0]);
            h.update(program);
            h.update([0]);
            h.update(&scenario);
            h
        });
        use crate::store::site_cache::{cache_file, load, public_file};
        PageCache {
            made_by,
            scenario,
            pages: load(cache_file(dir)),
            public: load(public_file(dir)),
            game: dir.clone(),
        }
    }

    fn key(&self, content: &[u8; 32]) -> Option<String> {
        let mut h = self.made_by.clone()?;
        h.update([0]);
        h.update(content);
        Some(hex::encode(h.finalize()))
    }

    fn public_key(&self, content: &[u8; 32]) -> String {
        public_key(&self.scenario, content)
    }

    fn get(&self, entry: &EntryInput, key: &str) -> Option<PhasePage> {
        let (file, range) = self.pages.get_shared(&entry.dir, key)?;
        page_from(entry, file, range, None)
    }

    /// Where the resolution keeps the map of the public page keyed `key`.
    fn public_maps(&self, key: &str) -> PathBuf {
        crate::store::site_cache::public_map(&self.game, key)
    }
}

/// The running executable, as its file is now: path, size, time and
/// (on Unix) device and inode. A new build is a new file.
fn program_identity() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let m = fs::metadata(&exe).ok()?;
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::MetadataExt;
        format!("{} {} {}.{}", m.dev(), m.ino(), m.mtime(), m.mtime_nsec())
    };
    #[cfg(not(unix))]
    let file = format!("{:?}", m.modified().ok()?);
    Some(format!("{} {} {file}", exe.display(), m.len()))
}

/// The scenario the maps are drawn from: its name when it is built in
/// (the program's identity covers it), else every file of its directory.
fn scenario_identity(dir: &GameDir, config: &crate::store::GameConfig) -> Vec<u8> {
    let own = [dir.scenario_dir(), PathBuf::from(&config.scenario)]
        .into_iter()
        .find(|d| d.is_dir());
    let mut out = format!("scenario {}\n", config.scenario).into_bytes();
    if let Some(d) = own {
        match crate::store::read_scenario_files(&d) {
            Ok(files) => {
                for (name, text) in files {
                    out.extend_from_slice(format!("{name} {}\n", text.len()).as_bytes());
                    out.extend_from_slice(text.as_bytes());
                }
            }
            // unreadable now: a key no page was stored under
            Err(e) => out.extend_from_slice(format!("unreadable {e}").as_bytes()),
        }
    }
    out
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
    let bytes = |rel: &str| entry.bytes(rel);
    let file = |rel: &str| bytes(rel).map(|b| String::from_utf8_lossy(b).into_owned());
    let record: Option<EntryRecord> = file("entry.toml").and_then(|t| toml::from_str(&t).ok());
    let outcomes: Vec<Outcome> = file("outcomes.toml")
        .and_then(|t| toml::from_str::<OutcomesFile>(&t).ok())
        .map(|o| o.outcomes)
        .unwrap_or_default();
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
    page_of(
        scenario,
        fixed,
        &entry.dir,
        record.as_ref(),
        &outcomes,
        before.as_ref(),
        after.as_ref(),
    )
}

/// The public page of the entry `dir` from what it holds, read or in
/// memory; `before` and `after` already as every power sees them
/// (`State::public_view`).
fn page_of(
    scenario: &Scenario,
    fixed: Option<&crate::picture::Fixed<'_>>,
    dir: &str,
    record: Option<&EntryRecord>,
    outcomes: &[Outcome],
    before: Option<&State>,
    after: Option<&State>,
) -> PhasePage {
    let public: Vec<Outcome> = site::privacy::public_outcomes(outcomes);
    let standings = after.map(site::public_standings).unwrap_or_default();
    let phase = record.map(|r| r.phase.to_string()).unwrap_or_default();
    let map = after.zip(fixed).and_then(|(s, fixed)| {
        Scene::new(scenario, s, before, &public, None, &phase)
            .svg_on(fixed)
            .ok()
            .map(site::Svg::new)
    });
    PhasePage {
        dir: dir.to_string(),
        kind: record.map(|r| r.kind.clone()).unwrap_or_default(),
        note: record.map(|r| r.note.clone()).unwrap_or_default(),
        phase,
        events: TurnReportView::events_for(&public, None)
            .into_iter()
            .collect::<Vec<EventView>>(),
        standings,
        map,
    }
}

/// What the resolution just wrote as the history entry `name`, with the
/// states it had in memory, so that its public page is written beside the
/// history without parsing them ([`public_page`]).
pub struct Resolved<'r> {
    pub dir: &'r GameDir,
    pub scenario: &'r Scenario,
    pub config: &'r crate::store::GameConfig,
    pub name: &'r str,
    /// The bytes of the entry's [`PAGE_FILES`] as written.
    pub entry_toml: &'r [u8],
    pub files: &'r std::collections::BTreeMap<String, Vec<u8>>,
    pub outcomes: &'r [Outcome],
    pub before: &'r State,
    pub after: &'r State,
}

/// Append the public page of the entry the resolution just wrote to the
/// game's public pages (`store::site_cache::public_file`): only what every
/// power sees (the outcomes whose visibility is everyone, the standings,
/// the map without compositions, 2.5), keyed by the bytes the page is made
/// from, so that a site parses no state of it. A page that cannot be
/// written costs only a site's parsing later.
pub fn public_page(r: &Resolved<'_>) {
    let content = content_digest(|rel| {
        let bytes = match rel {
            "entry.toml" => Some(r.entry_toml),
            _ => r.files.get(rel).map(Vec::as_slice),
        };
        bytes.map(|b| Sha256::digest(b).into())
    });
    let key = public_key(&scenario_identity(r.dir, r.config), &content);
    let record: Option<EntryRecord> = toml::from_str(&String::from_utf8_lossy(r.entry_toml)).ok();
    let fixed = crate::picture::has_geometry(&r.scenario.map)
        .then(|| crate::picture::Fixed::new(r.scenario).ok())
        .flatten();
    let page = page_of(
        r.scenario,
        fixed.as_ref(),
        r.name,
        record.as_ref(),
        r.outcomes,
        Some(&r.before.public_view()),
        Some(&r.after.public_view()),
    );
    // The map in a file of its own, which the site links rather than
    // copies; in the record if that file cannot be written.
    let apart = page.map.as_ref().and_then(site::Svg::as_bytes).is_some_and(|svg| {
        crate::store::site_cache::write_whole(&crate::store::site_cache::public_map(r.dir, &key), svg).is_ok()
    });
    if let Some(bytes) = page_bytes(&page, apart) {
        let _ = crate::store::site_cache::append(
            &crate::store::site_cache::public_file(r.dir),
            &[(r.name.to_string(), key, bytes)],
        );
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

/// Write every file under `out`, each file that may already be there
/// replaced in one step (written under a temporary name renamed over it,
/// or a link made in place); a file whose bytes are already there is
/// left alone.
///
/// A history file published as stored is a hard link to the game's own
/// file where the two directories share a file system: one call instead
/// of reading and writing it, and no second copy on the disk. History
/// files are never rewritten in place (`store::history`; `write_all`
/// renames over its files too), so the link always holds the bytes the
/// game holds. Where a link cannot be made, the bytes are copied.
///
/// In a directory this call made there is nothing to compare with or to
/// replace, so a file there is written where it goes, without looking for
/// one first or a temporary name (a site from nothing makes every
/// directory: a look for each of its files, and a rename, were a system
/// call each).
///
/// The directories made, the files are written in one run of consecutive
/// files for each core: writing is most of a site's time, nearly all of
/// it the kernel's (copying the bytes, making the files), and no two
/// files share anything but their directory.
pub fn write_all(out: &Path, files: &[SiteFile<'_>]) -> Result<()> {
    // each directory met, and whether this call made it
    let mut dirs: HashMap<PathBuf, bool> = HashMap::new();
    let mut todo = Vec::with_capacity(files.len());
    for f in files {
        let path = out.join(&f.path);
        let new_dir = make_dir(path.parent().unwrap_or(out), &mut dirs)?;
        todo.push((f, path, new_dir));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_run = todo.len().div_ceil(cores).max(256);
    if per_run >= todo.len() {
        return write_run(out, &todo);
    }
    std::thread::scope(|s| {
        let runs: Vec<_> = todo
            .chunks(per_run)
            .map(|run| s.spawn(move || write_run(out, run)))
            .collect();
        runs.into_iter()
            .try_for_each(|r| r.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    })
}

/// Write each file of `run` at its path, in a directory this call of
/// [`write_all`] made or not ([`write_all`] says how).
fn write_run(out: &Path, run: &[(&SiteFile<'_>, PathBuf, bool)]) -> Result<()> {
    let mut links = true;
    for (f, path, new_dir) in run {
        let parent = path.parent().unwrap_or(out);
        let tmp = || {
            parent.join(format!(
                ".{}.tmp",
                path.file_name().and_then(|n| n.to_str()).unwrap_or("site")
            ))
        };
        if let Some(stored) = f.stored.filter(|_| links) {
            match fs::hard_link(stored, path) {
                Ok(()) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if same_file(stored, path) {
                        continue;
                    }
                    let tmp = tmp();
                    let _ = fs::remove_file(&tmp);
                    if fs::hard_link(stored, &tmp).is_ok() {
                        fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
                        continue;
                    }
                    links = false;
                }
                // another file system, or one without links: copies
                Err(_) => links = false,
            }
        }
        let bytes = match (&f.bytes, f.stored) {
            (Some(b), _) => std::borrow::Cow::Borrowed(b.as_ref()),
            (None, Some(stored)) => {
                std::borrow::Cow::Owned(fs::read(stored).with_context(|| format!("cannot read {}", stored.display()))?)
            }
            (None, None) => anyhow::bail!("{}: no bytes to write", f.path),
        };
        if *new_dir {
            // nothing there to replace, so no reader can meet half of it
            // in place of a whole old file: written where it goes
            fs::write(path, &bytes).with_context(|| format!("cannot write {}", path.display()))?;
            continue;
        }
        if fs::metadata(path).is_ok_and(|m| m.len() == bytes.len() as u64)
            && fs::read(path).is_ok_and(|old| old == *bytes)
        {
            continue;
        }
        let tmp = tmp();
        fs::write(&tmp, &bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
        fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Make the directory `dir` and those above it that are missing, and say
/// whether this call of [`write_all`] made `dir` (`dirs` holds each
/// directory it met, and whether it made it).
fn make_dir(dir: &Path, dirs: &mut HashMap<PathBuf, bool>) -> Result<bool> {
    if let Some(made) = dirs.get(dir) {
        return Ok(*made);
    }
    let made = match fs::create_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match dir.parent() {
            Some(up) => {
                make_dir(up, dirs)?;
                fs::create_dir(dir)
            }
            None => Err(e),
        },
        r => r,
    };
    let made = match made {
        Ok(()) => true,
        // made before, or meanwhile by another
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => false,
        Err(e) => return Err(e).with_context(|| format!("cannot create {}", dir.display())),
    };
    dirs.insert(dir.to_path_buf(), made);
    Ok(made)
}

/// Whether two paths name one file (a link made before).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}
