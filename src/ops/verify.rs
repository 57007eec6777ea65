//! `empereur verify`: recompute every commitment, every committed roll
//! and the whole hash chain of a game's history; with `--replay`, also
//! re-adjudicate each resolved phase from its recorded inputs and compare
//! the state byte for byte. One line per problem, naming the entry, the
//! roll's purpose and what differs.
//!
//! Cheap by design: each file of the history is read and hashed once;
//! state files are only parsed for `--replay`.
#![allow(clippy::disallowed_methods)] // adapter

use super::Done;
use super::progress::{Progress, Silent};
use super::resolve::Engine;
use crate::dice::{self, Dice, Replay, RollSource};
use crate::ids::PowerId;
use crate::rules;
use crate::store::history::{self, DiceLog, EntropyFile, EntryRecord, OutcomesFile, sha256_hex};
use crate::store::submission::Submission;
use crate::store::{GameDir, phase};
use anyhow::Result;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// `empereur verify` arguments.
#[derive(Debug, Clone, Default)]
pub struct VerifyArgs {
    /// The game directory.
    pub game: PathBuf,
    /// Also re-adjudicate every resolved phase and compare the states.
    pub replay: bool,
    /// Only report on these history entries (number or directory name).
    pub entries: Vec<String>,
    /// A player's mailbox (a Maildir, a directory of .eml files, an mbox
    /// or one .eml): check every anchor the game mailed against the history.
    pub mails: Option<PathBuf>,
    /// Whose mailbox `--mails` is (the power the player plays).
    pub power: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct VerifyOptions {
    pub replay: bool,
    pub entries: Vec<String>,
}

/// One mismatch: where (an entry directory, `state.toml`, `phase`,
/// `history`) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub at: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    pub problems: Vec<Problem>,
    /// Things worth saying that are not mismatches (manual rolls).
    pub notes: Vec<String>,
    pub entries: usize,
    pub committed_rolls: usize,
    pub manual_rolls: usize,
    pub replayed: usize,
    /// Beacon rounds whose signature was checked.
    pub beacons: usize,
    /// Resolutions with committed rolls but no entropy and no beacon: the
    /// holder of the seed knew their dice in advance (docs/dice.md 9).
    pub foreseeable: Vec<String>,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// What `empereur verify` found: the report, with the notes of the
/// mailbox check and of foreseeable dice added, and the warnings about
/// the game directory's file modes.
#[derive(Clone, Debug)]
pub struct Verified {
    pub report: VerifyReport,
    pub replay: bool,
    pub warnings: Vec<String>,
}

impl fmt::Display for Verified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.report;
        for n in &r.notes {
            writeln!(f, "note: {n}")?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        for p in &r.problems {
            writeln!(f, "{p}")?;
        }
        let replay = if self.replay {
            format!(", {} phase(s) replayed", r.replayed)
        } else {
            String::new()
        };
        let beacons = if r.beacons > 0 {
            format!(", {} beacon signature(s) checked", r.beacons)
        } else {
            String::new()
        };
        let summary = format!(
            "{} entries, {} committed roll(s), {} manual roll(s){beacons}{replay}",
            r.entries, r.committed_rolls, r.manual_rolls
        );
        if r.ok() {
            writeln!(f, "ok: {summary}")
        } else {
            writeln!(f, "{} problem(s): {summary}", r.problems.len())
        }
    }
}

impl super::Summary for Verified {
    fn done(&self) -> Done {
        if self.report.ok() { Done::Yes } else { Done::No }
    }
}

pub fn run(a: &VerifyArgs, progress: &mut dyn Progress) -> Result<Verified> {
    let dir = GameDir::new(&a.game);
    let mut r = verify_game_shown(
        &dir,
        &VerifyOptions {
            replay: a.replay,
            entries: a.entries.clone(),
        },
        rules::resolve,
        progress,
    )?;
    if let Some(m) = &a.mails {
        let power = a.power.as_deref().unwrap_or_default();
        let power = PowerId::parse(power).ok_or_else(|| anyhow::anyhow!("--power: no power '{power}'"))?;
        let mr = verify_mails(&dir, m)?;
        r.notes.push(format!(
            "the mailbox of {} holds {} mail(s) of the game with {} anchor(s)",
            power.name(),
            mr.mails,
            mr.anchors
        ));
        r.problems.extend(mr.problems);
    }
    if !r.foreseeable.is_empty() {
        r.notes.push(format!(
            "{} resolution(s) had committed dice but no entropy and no beacon, so the moderator could know their dice when the phase opened (docs/dice.md 9; a beacon closes this): {}",
            r.foreseeable.len(),
            r.foreseeable.join(", ")
        ));
    }
    Ok(Verified {
        report: r,
        replay: a.replay,
        warnings: crate::store::loose_modes(&dir.root),
    })
}

struct Ctx {
    report: VerifyReport,
}

impl Ctx {
    fn problem(&mut self, at: &str, message: impl Into<String>) {
        self.report.problems.push(Problem {
            at: at.to_string(),
            message: message.into(),
        });
    }
}

fn short(h: &str) -> &str {
    h.get(..12).unwrap_or(h)
}

/// What the previous entries established.
#[derive(Default)]
struct Chain {
    /// (entry name, hash of its entry.toml)
    prev: Option<(String, String)>,
    /// (entry name, hash of its state-after.toml)
    state_after: Option<(String, String)>,
    /// (entry name, commitment it opened)
    next_commitment: Option<(String, String)>,
    /// seed hex -> (entry that revealed it, its commitment)
    seeds: BTreeMap<String, (String, String)>,
    /// Resolutions so far: entry name -> (phase, commitment, SHA-256 of
    /// its entropy.toml).
    resolved: BTreeMap<String, (crate::ids::PhaseId, String, String)>,
    /// When the latest entry that opened a phase was an undo: the entry
    /// it rolled back (whose key the reopened phase keeps).
    reopened_from: Option<String>,
    /// The latest entry that opened a phase: its name, the SHA-256 of its
    /// entry.toml (the `chain` of `phase/commitment`), the phase and
    /// whether it was announced with physical dice.
    opened: Option<(String, String, Option<crate::ids::PhaseId>, bool)>,
    /// The genesis entry's seed-chain anchor and length (docs/dice.md 1a).
    anchor: Option<(dice::Seed, u32)>,
    /// Each commitment published under a new seed, in order: (entry that
    /// published it, commitment); with a seed chain, link i is seed i.
    links: Vec<(String, String)>,
    /// Commitments whose phase was announced with physical dice.
    physical: BTreeSet<String>,
    /// `preview` entries since the latest entry that opened a phase.
    previews: u32,
    /// The game id of the entries (the seed chain is keyed by it).
    game: String,
}

/// Replay's carried state: the scenario (loaded once) and the state the
/// last replayed phase produced, keyed by the hash of the recorded
/// `state-after.toml` it equals, so the next phase need not parse its
/// `state-before.toml`.
struct Replayer {
    engine: Engine,
    scenario: Option<std::result::Result<std::sync::Arc<crate::scenario::Scenario>, String>>,
    carried: Option<(String, crate::state::State)>,
}

/// Verify the game in `dir`. Operational failures (no such directory) are
/// errors; everything found wrong is a [`Problem`].
pub fn verify_game(dir: &GameDir, opts: &VerifyOptions) -> Result<VerifyReport> {
    verify_game_with(dir, opts, rules::resolve)
}

/// As [`verify_game`], replaying with another engine (tests).
pub fn verify_game_with(dir: &GameDir, opts: &VerifyOptions, engine: Engine) -> Result<VerifyReport> {
    verify_game_shown(dir, opts, engine, &mut Silent)
}

/// As [`verify_game_with`], telling `progress` of each entry replayed.
pub fn verify_game_shown(
    dir: &GameDir,
    opts: &VerifyOptions,
    engine: Engine,
    progress: &mut dyn Progress,
) -> Result<VerifyReport> {
    if !dir.history().is_dir() {
        anyhow::bail!("{} holds no history/ directory; is it a game?", dir.root.display());
    }
    let mut cx = Ctx {
        report: VerifyReport::default(),
    };
    let head = match history::read_head(dir) {
        Ok(h) => h,
        Err(e) => {
            cx.problem("history/head.toml", format!("{e:#}"));
            history::Head::default()
        }
    };
    let listing = history::list(dir)?;
    for (n, name) in &listing {
        if *n > head.entries || *n == 0 {
            cx.problem(
                name,
                format!(
                    "this entry is not in the chain (history/head.toml counts {} entries)",
                    head.entries
                ),
            );
        }
    }
    let mut chain = Chain::default();
    let mut replayer = opts.replay.then_some(Replayer {
        engine,
        scenario: None,
        carried: None,
    });
    match history::genesis(dir)? {
        Some(g) => check_genesis(dir, &g, &mut chain, &mut cx),
        None if head.entries > 0 || phase::record(dir).ok().flatten().is_some() => cx.report.notes.push(
            "no genesis entry (a game created before seed chains): each phase's seed was drawn when it opened, so nothing shows that a next seed was not redrawn before its commitment was mailed (docs/dice.md 1a)"
                .into(),
        ),
        None => {}
    }
    // Replay is the slow part, the only one worth showing.
    progress.start(if opts.replay { u64::from(head.entries) } else { 0 }, "verify --replay");
    for n in 1..=head.entries {
        progress.step();
        let Some(name) = listing.get(&n) else {
            cx.problem(
                "history",
                format!(
                    "entry {n:04} is missing (history/head.toml counts {} entries)",
                    head.entries
                ),
            );
            // The next entry's link cannot be checked against a missing one.
            chain.prev = None;
            continue;
        };
        cx.report.entries += 1;
        check_entry(dir, name, n, &mut chain, &mut cx, replayer.as_mut());
    }
    progress.finish();
    // The head names the last entry.
    if head.entries > 0 {
        if let Some((last, hash)) = &chain.prev {
            if *hash != head.head {
                cx.problem(
                    "history/head.toml",
                    format!(
                        "the head is {} but the last entry {last} hashes to {}",
                        short(&head.head),
                        short(hash)
                    ),
                );
            }
            if head.last != *last {
                cx.problem(
                    "history/head.toml",
                    format!("it names {} as the last entry, not {last}", head.last),
                );
            }
        }
    } else {
        let want = chain.prev.as_ref().map_or(history::ZERO, |(_, h)| h.as_str());
        if head.head != want {
            cx.problem(
                "history/head.toml",
                format!("it counts no entries, so its head must be {}", short(want)),
            );
        }
    }
    check_seed_chain(&chain, &mut cx);
    let in_flight = phase::staged_commitment(dir).ok().flatten().is_some();
    if in_flight {
        cx.report
            .notes
            .push("a resolution was interrupted; `empereur resolve` finishes or undoes it".into());
    }
    check_current(dir, &chain, &mut cx, in_flight);

    if !opts.entries.is_empty() {
        let wanted: Vec<String> = opts.entries.clone();
        let matches = |at: &str| {
            wanted.iter().any(|w| {
                at == w
                    || (w.len() <= 4
                        && w.parse::<u32>()
                            .ok()
                            .map(|n| format!("{n:04}-"))
                            .is_some_and(|p| at.starts_with(&p)))
            })
        };
        cx.report.problems.retain(|p| matches(&p.at));
        cx.report
            .notes
            .retain(|n| wanted.iter().any(|w| n.contains(w.as_str())));
    }
    Ok(cx.report)
}

/// The files of an entry that several checks read, parsed once: each
/// stored submission and the dice log.
struct Parsed {
    /// `orders/<power>.toml`: its path, its power (None: not named after
    /// one) and the submission or why it does not parse.
    subs: Vec<(String, Option<PowerId>, Result<Submission, String>)>,
    /// `dice.toml`, if the entry has one.
    dice: Option<Result<DiceLog, String>>,
}

impl Parsed {
    fn of(content: &BTreeMap<String, Vec<u8>>) -> Parsed {
        let subs = content
            .iter()
            .filter_map(|(rel, b)| {
                let p = rel.strip_prefix("orders/")?.strip_suffix(".toml")?;
                Some((rel.clone(), PowerId::parse(p), parse::<Submission>(b)))
            })
            .collect();
        Parsed {
            subs,
            dice: content.get("dice.toml").map(|b| parse::<DiceLog>(b)),
        }
    }
}

/// Read a file of an entry (None if missing or unreadable: reported by the
/// file-hash check).
fn read(path: &Path) -> Option<Vec<u8>> {
    fs::read(path).ok()
}

fn files_on_disk(root: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(rd) = fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for e in rd.flatten() {
            let r = rel.join(e.file_name());
            if e.path().is_dir() {
                stack.push(r);
            } else {
                out.insert(r.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out
}

fn check_entry(dir: &GameDir, name: &str, n: u32, chain: &mut Chain, cx: &mut Ctx, replay: Option<&mut Replayer>) {
    let root = history::entry_dir(dir, name);
    let (rec, bytes) = match history::read_entry(dir, name) {
        Ok(x) => x,
        Err(e) => {
            cx.problem(name, format!("entry.toml: {e:#}"));
            chain.prev = None;
            return;
        }
    };
    let hash = sha256_hex(&bytes);
    chain.game.clone_from(&rec.game);
    if rec.number != n || name != history::dir_name(n, rec.phase) {
        cx.problem(
            name,
            format!(
                "entry.toml says entry {} of phase {}, not {name}",
                rec.number, rec.phase
            ),
        );
    }
    // 6 (docs/dice.md): each entry names the hash of the one before.
    match &chain.prev {
        Some((pname, phash)) if *phash != rec.previous => cx.problem(
            name,
            format!(
                "entry.toml names previous {} but entry {pname} hashes to {} (an earlier entry was changed or removed)",
                short(&rec.previous),
                short(phash)
            ),
        ),
        None if n == 1 && rec.previous != history::ZERO => {
            cx.problem(name, "the first entry must name no previous entry (64 zeros)")
        }
        _ => {}
    }
    chain.prev = Some((name.to_string(), hash.clone()));

    // Every file as recorded, and nothing else.
    let mut content: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let on_disk = files_on_disk(&root);
    for (rel, want) in &rec.files {
        match read(&root.join(rel)) {
            None => cx.problem(name, format!("{rel} is missing (entry.toml records it)")),
            Some(b) => {
                let got = sha256_hex(&b);
                if got != *want {
                    cx.problem(
                        name,
                        format!(
                            "{rel} was changed after it was recorded (SHA-256 {} recorded, {} on disk)",
                            short(want),
                            short(&got)
                        ),
                    );
                }
                content.insert(rel.clone(), b);
            }
        }
    }
    for f in &on_disk {
        if f != "entry.toml" && !rec.files.contains_key(f) {
            cx.problem(name, format!("{f} is not recorded in entry.toml"));
        }
    }

    // The states follow on from each other.
    if let Some(before) = content.get("state-before.toml") {
        let h = sha256_hex(before);
        if let Some((pname, after)) = &chain.state_after
            && *after != h
        {
            cx.problem(
                name,
                format!("state-before.toml is not the state-after.toml of entry {pname}"),
            );
        }
    }
    if let Some(after) = content.get("state-after.toml") {
        chain.state_after = Some((name.to_string(), sha256_hex(after)));
    }

    // Submissions and the dice log are read by the entropy, lock, dice
    // and replay checks: parse them once.
    let parsed = Parsed::of(&content);
    check_undo(name, &rec, &content, chain, cx);
    check_dice(name, &rec, &content, &parsed, chain, cx);
    if rec.kind == "resolve" && rec.format >= 3 {
        check_moderator_marks(name, &rec, &parsed, chain, cx);
    }
    if rec.kind == super::resolve::PREVIEW {
        chain.previews += 1;
    }
    opened(name, &rec, &hash, chain);
    if let Some(r) = replay {
        if rec.kind == "resolve" {
            replay_entry(dir, name, &rec, &content, &parsed, cx, r);
        } else {
            r.carried = None;
        }
    }
}

/// What an entry that opens a phase establishes for the entries after it.
fn opened(name: &str, rec: &EntryRecord, hash: &str, chain: &mut Chain) {
    let Some(c) = &rec.next_commitment else { return };
    chain.next_commitment = Some((name.to_string(), c.clone()));
    chain.reopened_from = if rec.kind == "undo" { rec.undone.clone() } else { None };
    let physical = rec.next_dice.as_deref() == Some(super::resolve::MANUAL);
    chain.opened = Some((name.to_string(), hash.to_string(), rec.next_phase, physical));
    chain.previews = 0;
    // An undo reopens a phase under its old seed; every other opening
    // uses the next link of the seed chain (docs/dice.md 1a).
    if rec.kind != "undo" {
        chain.links.push((name.to_string(), c.clone()));
        if physical {
            chain.physical.insert(c.clone());
        }
    }
}

/// The genesis entry (docs/dice.md 1a): entry 0, first of the chain, with
/// the seed chain's anchor and the first phase's commitment.
fn check_genesis(dir: &GameDir, name: &str, chain: &mut Chain, cx: &mut Ctx) {
    let (rec, bytes) = match history::read_entry(dir, name) {
        Ok(x) => x,
        Err(e) => return cx.problem(name, format!("entry.toml: {e:#}")),
    };
    let hash = sha256_hex(&bytes);
    chain.game.clone_from(&rec.game);
    if rec.kind != history::GENESIS || rec.number != 0 || name != history::dir_name(0, rec.phase) {
        cx.problem(name, "entry 0 must be the genesis entry, named after the first phase");
    }
    if rec.previous != history::ZERO {
        cx.problem(name, "the genesis entry must name no previous entry (64 zeros)");
    }
    if !rec.files.is_empty() || files_on_disk(&history::entry_dir(dir, name)).len() > 1 {
        cx.problem(name, "the genesis entry holds no file but entry.toml");
    }
    if rec.next_phase != Some(rec.phase) || rec.next_commitment.is_none() || rec.commitment.is_some() {
        cx.problem(
            name,
            "the genesis entry opens its phase (next_phase, next_commitment) and resolves nothing",
        );
    }
    match (rec.chain_anchor.as_deref().map(dice::parse_hex32), rec.chain_length) {
        (Some(Ok(a)), Some(n)) if n > 0 => chain.anchor = Some((a, n)),
        _ => cx.problem(
            name,
            "the genesis entry must publish the seed chain: chain_anchor (64 hex digits) and chain_length (at least 1)",
        ),
    }
    chain.prev = Some((name.to_string(), hash.clone()));
    opened(name, &rec, &hash, chain);
}

/// docs/dice.md 1a: the seed revealed for the i-th commitment published
/// under a new seed hashes (once per link) to the seed of the one before,
/// and the first to the anchor of the genesis entry. A seed that does not
/// was redrawn.
fn check_seed_chain(chain: &Chain, cx: &mut Ctx) {
    let Some((anchor, length)) = chain.anchor else { return };
    if chain.links.len() > length as usize {
        cx.problem(
            "history",
            format!(
                "{} phases were opened under new seeds, but the seed chain has {length} links",
                chain.links.len()
            ),
        );
    }
    let by_commitment: BTreeMap<&str, &str> = chain.seeds.iter().map(|(s, (_, c))| (c.as_str(), s.as_str())).collect();
    let game = chain_game(chain);
    let (mut prev, mut gap) = (anchor, 0u32);
    for (i, (name, c)) in chain.links.iter().enumerate() {
        let Some(seed) = by_commitment.get(c.as_str()).and_then(|s| dice::parse_hex32(s).ok()) else {
            // The open phase's seed is secret until it is resolved.
            if i + 1 < chain.links.len() {
                cx.problem(
                    name,
                    format!(
                        "the seed of the commitment {} it published was never revealed",
                        short(c)
                    ),
                );
            }
            gap += 1;
            continue;
        };
        let mut back = seed;
        for _ in 0..=gap {
            back = dice::chain_link(&game, &back);
        }
        if back != prev {
            cx.problem(
                name,
                format!(
                    "the seed of the commitment {} it published is not link {} of the seed chain of the genesis entry (a redrawn seed)",
                    short(c),
                    i + 1
                ),
            );
        }
        (prev, gap) = (seed, 0);
    }
}

/// The game id the chain's entries were checked under.
fn chain_game(chain: &Chain) -> String {
    chain.game.clone()
}

/// Format 3 (docs/dice.md 4, 9): manual dice only in a phase announced
/// with physical dice before it opened, and the note counts the chained
/// `preview` entries of the phase.
fn check_moderator_marks(name: &str, rec: &EntryRecord, parsed: &Parsed, chain: &Chain, cx: &mut Ctx) {
    let manual = parsed
        .dice
        .as_ref()
        .and_then(|l| l.as_ref().ok())
        .is_some_and(|l| l.rolls.iter().any(|r| r.source == RollSource::Manual));
    let c = rec.commitment.as_deref().unwrap_or_default();
    if manual && !chain.physical.contains(c) {
        cx.problem(
            name,
            format!(
                "it was resolved with manual dice, but {} was not announced with physical dice before it opened",
                rec.phase
            ),
        );
    }
    let said = rec
        .note
        .split("; ")
        .find_map(|n| n.strip_suffix(" preview(s) with throwaway seeds were run before this resolution"))
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or(0);
    if said != chain.previews {
        cx.problem(
            name,
            format!(
                "its note says {said} preview(s) were run, but the history records {} preview entr(ies) of {}",
                chain.previews, rec.phase
            ),
        );
    }
}

/// An undo entry (docs/dice.md 6): it abandons the phase that was open
/// (revealing its seed) and reopens the phase of the entry it rolls back
/// under that entry's commitment.
fn check_undo(name: &str, rec: &EntryRecord, content: &BTreeMap<String, Vec<u8>>, chain: &mut Chain, cx: &mut Ctx) {
    if rec.kind != "undo" || rec.format < 2 {
        return;
    }
    match &rec.undone {
        None => cx.problem(name, "an undo entry must name the entry it rolls back (undone)"),
        Some(u) => match chain.resolved.get(u) {
            None => cx.problem(name, format!("it rolls back {u}, which is not an earlier resolution")),
            Some((ph, c, _)) => {
                if rec.phase != *ph || rec.next_phase != Some(*ph) {
                    cx.problem(
                        name,
                        format!("it rolls back {u} of {ph}, so it must be named after and reopen {ph}"),
                    );
                }
                if rec.next_commitment.as_deref() != Some(c.as_str()) {
                    cx.problem(
                        name,
                        format!(
                            "the reopened phase must keep the commitment {} of {u} (no re-roll)",
                            short(c)
                        ),
                    );
                }
            }
        },
    }
    if rec.commitment.is_some() {
        cx.problem(name, "an undo entry resolves nothing, so it has no commitment");
    }
    let Some(ac) = &rec.abandoned_commitment else { return };
    if let Some((pname, prev)) = &chain.next_commitment
        && prev != ac
    {
        cx.problem(
            name,
            format!(
                "it abandons commitment {} but entry {pname} published {}",
                short(ac),
                short(prev)
            ),
        );
    }
    let Some(ap) = rec.abandoned_phase else {
        cx.problem(name, "abandoned_commitment without abandoned_phase");
        return;
    };
    match content
        .get("abandoned-seed")
        .map(|b| dice::parse_hex32(&String::from_utf8_lossy(b)))
    {
        None => cx.problem(
            name,
            "the abandoned phase's seed is not revealed (no abandoned-seed file)",
        ),
        Some(Err(e)) => cx.problem(name, format!("abandoned-seed: {e}")),
        Some(Ok(seed)) => {
            let got = dice::commitment_with(&rec.game, &ap.to_string(), &seed, entry_beacon(rec).as_ref());
            if got != *ac {
                cx.problem(
                    name,
                    format!(
                        "abandoned-seed does not match the commitment {} of {ap} (it gives {})",
                        short(ac),
                        short(&got)
                    ),
                );
            }
            note_seed(name, &dice::to_hex(&seed), ac, chain, cx);
        }
    }
}

/// No seed serves two commitments (a seed is revealed again only by the
/// re-resolution of a phase reopened by an undo, or when that phase is
/// abandoned again: the same commitment).
fn note_seed(name: &str, seed_hex: &str, commitment: &str, chain: &mut Chain, cx: &mut Ctx) {
    match chain.seeds.get(seed_hex) {
        Some((first, c)) if c != commitment => cx.problem(
            name,
            format!("the seed was already used by entry {first} for another commitment (a reused seed)"),
        ),
        Some(_) => {}
        None => {
            chain
                .seeds
                .insert(seed_hex.to_string(), (name.to_string(), commitment.to_string()));
        }
    }
}

/// `lock.toml` (docs/dice.md, "The orders lock"): what every player is
/// mailed with the result is what was resolved.
fn check_lock(
    name: &str,
    rec: &EntryRecord,
    content: &BTreeMap<String, Vec<u8>>,
    parsed: &Parsed,
    entropy: &BTreeMap<PowerId, String>,
    cx: &mut Ctx,
) {
    let lock = match content.get("lock.toml").map(|b| parse::<history::LockFile>(b)) {
        None => return cx.problem(name, "lock.toml is missing (the lock mailed with the result)"),
        Some(Err(e)) => return cx.problem(name, format!("lock.toml: {e}")),
        Some(Ok(l)) => l,
    };
    if Some(&lock.commitment) != rec.commitment.as_ref() || lock.phase != rec.phase || lock.redo_of != rec.redo_of {
        cx.problem(
            name,
            "lock.toml locks another phase, commitment or re-resolution than the entry's",
        );
    }
    if !matches!(lock.dice.as_str(), "committed" | "manual") || (lock.dice == "manual") != lock.manual_dice.is_some() {
        cx.problem(
            name,
            format!("lock.toml says dice = \"{}\" (manual_dice goes with manual)", lock.dice),
        );
    }
    if (&lock.beacon, lock.beacon_round, &lock.beacon_signature)
        != (&rec.beacon, rec.beacon_round, &rec.beacon_signature)
    {
        cx.problem(
            name,
            "lock.toml names another beacon round or signature than the entry's",
        );
    }
    let mut locked = BTreeSet::new();
    for (rel, power, sub) in &parsed.subs {
        let (Some(power), Some(b)) = (*power, content.get(rel)) else {
            continue;
        };
        locked.insert(power);
        let by = sub.as_ref().map(|s| s.by.as_str()).unwrap_or_default();
        // Format 3: every submission not from the player's own mail
        // (submit, autoplay) is the moderator's; format 2 marked `submit`'s.
        let by_moderator = if rec.format >= 3 {
            !by.starts_with("mail:")
        } else {
            by == "moderator"
        };
        match lock.powers.get(&power) {
            None => cx.problem(name, format!("{rel} was resolved but is not in lock.toml")),
            Some(l) => {
                if l.receipt != sha256_hex(b) {
                    cx.problem(name, format!("lock.toml locks another receipt for {}", power.id()));
                }
                if by_moderator != (l.by == "moderator") || !matches!(l.by.as_str(), "moderator" | "player") {
                    cx.problem(
                        name,
                        format!("lock.toml does not say who entered the orders of {} ({by})", power.id()),
                    );
                }
                if entropy.get(&power).map(String::as_str).unwrap_or_default() != l.entropy {
                    cx.problem(name, format!("lock.toml locks other entropy for {}", power.id()));
                }
            }
        }
    }
    for p in lock.powers.keys().filter(|p| !locked.contains(p)) {
        cx.problem(
            name,
            format!("lock.toml locks orders of {} that the entry does not hold", p.id()),
        );
    }
    let sources: BTreeSet<String> = parsed
        .dice
        .as_ref()
        .and_then(|l| l.as_ref().ok())
        // A scripted die is a problem of its own (check_dice).
        .map(|l| {
            l.rolls
                .iter()
                .filter(|r| r.source != RollSource::Scripted)
                .map(|r| r.source.to_string())
                .collect()
        })
        .unwrap_or_default();
    let want = if lock.dice == "manual" { "manual" } else { "committed" };
    if sources.iter().any(|s| s != want) {
        cx.problem(
            name,
            format!("lock.toml says the dice are {}, the dice log does not", lock.dice),
        );
    }
}

/// The entropy a format-2 resolution must have used (docs/dice.md 2): each
/// power with a stored submission contributes its receipt and typed text.
fn expected_entropy(
    name: &str,
    rec: &EntryRecord,
    content: &BTreeMap<String, Vec<u8>>,
    parsed: &Parsed,
    cx: &mut Ctx,
) -> BTreeMap<PowerId, String> {
    let mut out = BTreeMap::new();
    for (rel, power, sub) in &parsed.subs {
        let (Some(power), Some(b)) = (*power, content.get(rel)) else {
            continue;
        };
        match sub {
            // Format 3: only a player's own mail adds entropy.
            Ok(s) if rec.format >= 3 && !s.by_player() => {}
            Ok(s) => {
                // Ingest removes the spaces around an ENTROPY value and
                // stores none for an empty line: no mail gives these.
                if let Some(t) = &s.entropy
                    && (t.is_empty() || t.trim() != t)
                {
                    cx.problem(
                        name,
                        format!("{rel}: its entropy '{t}' is empty or has spaces around it, which no mail could have produced"),
                    );
                }
                out.insert(power, dice::power_entropy(&sha256_hex(b), s.entropy.as_deref()));
            }
            Err(e) => cx.problem(name, format!("{rel}: {e}")),
        }
    }
    out
}

/// The dice of an entry: its seed opens its commitment, its entropy is
/// what it must be (or an undone entry's, for a redo), and every roll in
/// its log is what the committed dice give, and what its outcomes cite.
fn check_dice(
    name: &str,
    rec: &EntryRecord,
    content: &BTreeMap<String, Vec<u8>>,
    parsed: &Parsed,
    chain: &mut Chain,
    cx: &mut Ctx,
) {
    let Some(c) = &rec.commitment else { return };
    let Some(seed) = revealed_seed(name, rec, content, c, chain, cx) else {
        return;
    };
    let entropy = match content.get("entropy.toml").map(|b| parse::<EntropyFile>(b)) {
        Some(Ok(e)) => e.entropy,
        Some(Err(e)) => {
            cx.problem(name, format!("entropy.toml: {e}"));
            return;
        }
        None => BTreeMap::new(),
    };
    let entropy_hash = content.get("entropy.toml").map(|b| sha256_hex(b)).unwrap_or_default();
    if rec.kind == "resolve" && rec.format >= 2 {
        check_entropy(name, rec, content, parsed, (&entropy, &entropy_hash), chain, cx);
        check_lock(name, rec, content, parsed, &entropy, cx);
    }
    if rec.kind == "resolve" {
        chain
            .resolved
            .insert(name.to_string(), (rec.phase, c.clone(), entropy_hash));
    }
    let log = match &parsed.dice {
        Some(Ok(l)) => l,
        Some(Err(e)) => {
            cx.problem(name, format!("dice.toml: {e}"));
            return;
        }
        None => {
            cx.problem(name, "dice.toml is missing");
            return;
        }
    };
    let Some(beacon) = check_beacon(name, rec, cx) else {
        return;
    };
    // docs/dice.md 9: without entropy and without a beacon, whoever held
    // the seed knew these dice when the phase opened. Not a mismatch, but
    // every player should be told.
    if rec.kind == "resolve"
        && beacon.is_none()
        && entropy.values().all(String::is_empty)
        && log.rolls.iter().any(|r| r.source == RollSource::Committed)
    {
        cx.report.foreseeable.push(name.to_string());
    }
    let committed = dice::Committed::from_key(dice::derive_key_with(&seed, &entropy, beacon.as_ref()));
    let results = check_rolls(name, log, &committed, cx);
    check_cited_dice(name, content, &results, cx);
}

/// The seed an entry reveals, when it opens the commitment the previous
/// entry published (a mismatch is reported, and the seed still returned
/// so its rolls are checked too).
fn revealed_seed(
    name: &str,
    rec: &EntryRecord,
    content: &BTreeMap<String, Vec<u8>>,
    c: &str,
    chain: &mut Chain,
    cx: &mut Ctx,
) -> Option<dice::Seed> {
    if let Some((pname, prev)) = &chain.next_commitment
        && prev != c
    {
        cx.problem(
            name,
            format!(
                "the phase was resolved under commitment {} but entry {pname} published {}",
                short(c),
                short(prev)
            ),
        );
    }
    let seed = match content
        .get("seed")
        .map(|b| dice::parse_hex32(&String::from_utf8_lossy(b)))
    {
        None => {
            cx.problem(name, "the seed is not revealed (no seed file)");
            return None;
        }
        Some(Err(e)) => {
            cx.problem(name, format!("seed: {e}"));
            return None;
        }
        Some(Ok(s)) => s,
    };
    let got = dice::commitment_with(&rec.game, &rec.phase.to_string(), &seed, entry_beacon(rec).as_ref());
    if got != c {
        cx.problem(
            name,
            format!(
                "the revealed seed does not match the commitment {} of {} (it gives {})",
                short(c),
                rec.phase,
                short(&got)
            ),
        );
    }
    note_seed(name, &dice::to_hex(&seed), c, chain, cx);
    Some(seed)
}

/// A resolution's entropy: an undone entry's, kept byte for byte, when
/// it redoes that entry; otherwise each power's receipt and typed text.
fn check_entropy(
    name: &str,
    rec: &EntryRecord,
    content: &BTreeMap<String, Vec<u8>>,
    parsed: &Parsed,
    (entropy, entropy_hash): (&dice::Entropy, &str),
    chain: &Chain,
    cx: &mut Ctx,
) {
    let c = rec.commitment.as_deref().unwrap_or_default();
    match (&rec.redo_of, &chain.reopened_from) {
        (Some(r), Some(from)) if r == from => match chain.resolved.get(r) {
            Some((_, rc, rh)) => {
                if rc != c {
                    cx.problem(name, format!("it redoes {r} but under another commitment (a re-roll)"));
                }
                if rh != entropy_hash {
                    cx.problem(
                        name,
                        format!("it redoes {r} but its entropy.toml differs from that entry's (a re-roll)"),
                    );
                }
            }
            None => cx.problem(name, format!("it redoes {r}, which is not an earlier resolution")),
        },
        (Some(r), _) => cx.problem(
            name,
            format!("it says it redoes {r}, but the phase was not reopened by an undo of {r}"),
        ),
        (None, Some(from)) => cx.problem(
            name,
            format!("the phase was reopened by the undo of {from}, so it must keep that entry's key (redo_of)"),
        ),
        (None, None) => {
            let want = expected_entropy(name, rec, content, parsed, cx);
            if want != *entropy {
                let differ: Vec<&str> = PowerId::ALL
                    .iter()
                    .filter(|p| want.get(p) != entropy.get(p))
                    .map(|p| p.id())
                    .collect();
                cx.problem(
                    name,
                    format!(
                        "entropy.toml is not each power's receipt and typed text (differs for {})",
                        differ.join(", ")
                    ),
                );
            }
        }
    }
}

/// Each roll of the log once, a face of its die, and (when committed)
/// what the committed dice give. Returns the results by purpose.
fn check_rolls<'a>(name: &str, log: &'a DiceLog, committed: &dice::Committed, cx: &mut Ctx) -> BTreeMap<&'a str, u32> {
    let mut seen = BTreeSet::new();
    let mut results: BTreeMap<&str, u32> = BTreeMap::new();
    for r in &log.rolls {
        if !seen.insert(r.purpose.as_str()) {
            cx.problem(name, format!("roll '{}' appears twice in the dice log", r.purpose));
        }
        results.insert(r.purpose.as_str(), r.result);
        if r.sides == 0 || r.result == 0 || r.result > r.sides {
            cx.problem(
                name,
                format!("roll '{}': {} is not a face of a d{}", r.purpose, r.result, r.sides),
            );
            continue;
        }
        match r.source {
            RollSource::Committed => {
                cx.report.committed_rolls += 1;
                let want = committed.peek(&r.purpose, r.sides);
                if want != r.result {
                    cx.problem(
                        name,
                        format!(
                            "roll '{}': d{} recorded as {}, the committed dice give {want}",
                            r.purpose, r.sides, r.result
                        ),
                    );
                }
            }
            RollSource::Manual => {
                cx.report.manual_rolls += 1;
                cx.report.notes.push(format!(
                    "{name}: roll '{}' d{} = {} is manual (entered by the moderator, not committed)",
                    r.purpose, r.sides, r.result
                ));
            }
            RollSource::Scripted => cx.problem(
                name,
                format!("roll '{}' is scripted (a test die) in a game's history", r.purpose),
            ),
        }
    }
    results
}

/// Every die an outcome cites is in the log, with the same result.
fn check_cited_dice(name: &str, content: &BTreeMap<String, Vec<u8>>, results: &BTreeMap<&str, u32>, cx: &mut Ctx) {
    let Some(Ok(of)) = content.get("outcomes.toml").map(|b| parse::<OutcomesFile>(b)) else {
        return;
    };
    for o in &of.outcomes {
        for d in &o.dice {
            match results.get(d.purpose.as_str()) {
                None => cx.problem(
                    name,
                    format!(
                        "roll '{}': outcome '{}' ({}) cites it = {}, but it is not in the dice log",
                        d.purpose, o.kind, o.rule, d.result
                    ),
                ),
                Some(v) if *v != d.result => cx.problem(
                    name,
                    format!(
                        "roll '{}': outcome '{}' ({}) cites {}, the dice log says {v}",
                        d.purpose, o.kind, o.rule, d.result
                    ),
                ),
                _ => {}
            }
        }
    }
}

/// The beacon round an entry's revealed seed was committed with.
fn entry_beacon(rec: &EntryRecord) -> Option<dice::BeaconRound> {
    phase::beacon_of(rec.beacon.as_deref(), rec.beacon_round)
}

/// docs/dice.md 2a: a resolution whose commitment names a beacon round
/// records that round's signature, which must verify against the
/// network's public key (offline). `None` when the dice cannot be
/// checked (reported); `Some(None)` without a beacon.
fn check_beacon(name: &str, rec: &EntryRecord, cx: &mut Ctx) -> Option<Option<dice::BeaconValue>> {
    match (&rec.beacon, rec.beacon_round) {
        (None, None) => {
            if rec.beacon_signature.is_some() {
                cx.problem(name, "beacon_signature without a beacon round");
            }
            return Some(None);
        }
        (Some(_), Some(_)) => {}
        _ => {
            cx.problem(name, "beacon and beacon_round go together");
            return None;
        }
    }
    if rec.kind != "resolve" {
        return Some(None);
    }
    let value = match super::resolve::recorded_beacon(rec) {
        Ok(Some(v)) => v,
        Ok(None) => {
            cx.problem(
                name,
                "its commitment names a beacon round but the entry records no beacon_signature",
            );
            return None;
        }
        Err(e) => {
            cx.problem(name, e);
            return None;
        }
    };
    if let Err(e) = value.verify() {
        cx.problem(name, e);
        return None;
    }
    cx.report.beacons += 1;
    Some(Some(value))
}

fn parse<T: serde::de::DeserializeOwned>(b: &[u8]) -> Result<T, String> {
    let text = std::str::from_utf8(b).map_err(|_| "not UTF-8".to_string())?;
    toml::from_str(text).map_err(|e| e.message().trim().to_string())
}

/// Where `now` (state.toml) first differs from `recorded` (the entry's
/// state-after.toml): the line, the table it is in, and both readings.
fn first_difference(now: &str, recorded: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (now.lines().collect(), recorded.lines().collect());
    let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)).unwrap_or(0);
    let table = a[..i.min(a.len())]
        .iter()
        .rev()
        .find(|l| l.starts_with('['))
        .map(|t| format!(" in {t}"))
        .unwrap_or_default();
    format!(
        "line {}{table} reads `{}`, the entry has `{}`",
        i + 1,
        a.get(i).unwrap_or(&"<end>"),
        b.get(i).unwrap_or(&"<end>")
    )
}

/// state.toml and the open phase agree with the end of the chain.
fn check_current(dir: &GameDir, chain: &Chain, cx: &mut Ctx, in_flight: bool) {
    if let Some((pname, after)) = &chain.state_after
        && !in_flight
    {
        match fs::read(dir.state()) {
            Ok(b) if sha256_hex(&b) != *after => {
                let recorded = fs::read(history::entry_dir(dir, pname).join("state-after.toml")).unwrap_or_default();
                cx.problem(
                    "state.toml",
                    format!(
                        "it is not the state-after.toml of entry {pname} (changed after resolution): {}",
                        first_difference(&String::from_utf8_lossy(&b), &String::from_utf8_lossy(&recorded))
                    ),
                )
            }
            Ok(_) => {}
            // An exported history (`export-history`) has no state.toml.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !dir.root.join("game.toml").exists() => {
                cx.report
                    .notes
                    .push("no state.toml and no game.toml: an exported history, checked without them".into());
            }
            Err(e) => cx.problem("state.toml", format!("cannot be read: {e}")),
        }
    }
    let rec = match phase::record(dir) {
        Ok(Some(r)) => r,
        Ok(None) => {
            cx.problem("phase/commitment", "the open phase has no dice commitment");
            return;
        }
        Err(e) => {
            cx.problem("phase/commitment", format!("{e:#}"));
            return;
        }
    };
    if let Some((pname, hash, ph, physical)) = &chain.opened
        && !in_flight
    {
        // docs/dice.md 1: `chain` names the entry that opened the phase.
        if rec.chain != *hash {
            cx.problem(
                "phase/commitment",
                format!(
                    "its chain is {} but the phase was opened by entry {pname}, which hashes to {}",
                    short(&rec.chain),
                    short(hash)
                ),
            );
        }
        if Some(rec.phase) != *ph || rec.game != chain.game {
            cx.problem(
                "phase/commitment",
                format!(
                    "it commits to {} {}, but entry {pname} opened {}",
                    rec.game,
                    rec.phase,
                    ph.map(|p| p.to_string()).unwrap_or_default()
                ),
            );
        }
        if (rec.dice.as_deref() == Some(super::resolve::MANUAL)) != *physical
            || rec.dice.as_deref().is_some_and(|d| d != super::resolve::MANUAL)
        {
            cx.problem(
                "phase/commitment",
                format!(
                    "its dice = {:?} is not what entry {pname} opened the phase with",
                    rec.dice
                ),
            );
        }
    } else if chain.opened.is_none() && !in_flight && rec.chain != history::ZERO {
        cx.problem(
            "phase/commitment",
            "its chain must be 64 zeros: no entry opened the phase",
        );
    }
    if let Some((pname, c)) = &chain.next_commitment
        && *c != rec.commitment
        && !in_flight
    {
        cx.problem(
            "phase/commitment",
            format!(
                "it is {} but entry {pname} published {} for {}",
                short(&rec.commitment),
                short(c),
                rec.phase
            ),
        );
    }
    // The moderator can also check the secret seed against it.
    if let Ok(seed) = phase::read_seed(dir) {
        let got = dice::commitment_with(&rec.game, &rec.phase.to_string(), &seed, rec.beacon().as_ref());
        if got != rec.commitment && !in_flight {
            cx.problem(
                "phase/seed",
                format!(
                    "it does not match the commitment {} (it gives {})",
                    short(&rec.commitment),
                    short(&got)
                ),
            );
        }
        if let Some((first, c)) = chain.seeds.get(&dice::to_hex(&seed))
            && *c != rec.commitment
        {
            cx.problem(
                "phase/seed",
                format!("it was already used by entry {first} (a reused seed)"),
            );
        }
    }
}

/// Re-adjudicate a resolved phase from its recorded inputs and dice.
fn replay_entry(
    dir: &GameDir,
    name: &str,
    rec: &EntryRecord,
    content: &BTreeMap<String, Vec<u8>>,
    parsed: &Parsed,
    cx: &mut Ctx,
    r: &mut Replayer,
) {
    let scenario = match r.scenario.get_or_insert_with(|| {
        dir.load_config()
            .and_then(|c| dir.load_scenario(&c))
            .map_err(|e| format!("{e:#}"))
    }) {
        Ok(s) => s,
        Err(e) => {
            cx.problem(name, format!("replay: cannot load the scenario: {e}"));
            return;
        }
    };
    let Some(before) = content.get("state-before.toml") else {
        cx.problem(name, "replay: state-before.toml is missing");
        r.carried = None;
        return;
    };
    // The state the previous replay produced, when this entry starts from
    // it (the usual case): no need to parse state-before.toml again.
    let carried = r.carried.take().filter(|(h, _)| *h == sha256_hex(before));
    let state = match carried {
        Some((_, s)) => s,
        None => match crate::state::State::from_toml(&String::from_utf8_lossy(before)) {
            Ok(s) => s,
            Err(e) => {
                cx.problem(name, format!("replay: state-before.toml: {e}"));
                return;
            }
        },
    };
    let mut orders = rules::PhaseOrders::new();
    for (rel, power, sub) in &parsed.subs {
        let Some(power) = power else {
            cx.problem(name, format!("replay: {rel} is not named after a power"));
            continue;
        };
        match sub {
            Ok(s) => {
                orders.insert(*power, s.orders.clone());
            }
            Err(e) => cx.problem(name, format!("replay: {rel}: {e}")),
        }
    }
    let empty = DiceLog::default();
    let log = parsed.dice.as_ref().and_then(|l| l.as_ref().ok()).unwrap_or(&empty);
    let mut dice = Replay::new(&log.rolls);
    cx.report.replayed += 1;
    let mut res = match (r.engine)(scenario, &state, &orders, &mut dice) {
        Ok(r) => r,
        Err(rules::EngineError::Dice(dice::DiceError::Exhausted { purpose })) => {
            cx.problem(
                name,
                format!("roll '{purpose}': replay asks for it, but it is not in the dice log"),
            );
            return;
        }
        Err(e) => {
            cx.problem(name, format!("replay: {e}"));
            return;
        }
    };
    if let Err(dice::DiceError::Unused { values }) = dice.finish() {
        cx.problem(
            name,
            format!(
                "replay: the dice log holds roll(s) the engine did not ask for: {}",
                values.join(", ")
            ),
        );
    }
    let preface = super::resolve::preface_outcomes(&rec.late, rec.redo_of.as_deref(), &rec.changed);
    res.outcomes.splice(0..0, preface);
    res.outcomes
        .extend(rules::seating::seat_players(&mut res.state, &rec.seated));
    let got = res.state.to_toml();
    let want = content.get("state-after.toml").cloned().unwrap_or_default();
    if got.as_bytes() == want.as_slice() {
        r.carried = Some((sha256_hex(&want), res.state));
    } else {
        let want = String::from_utf8_lossy(&want);
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
        cx.problem(
            name,
            format!(
                "replay: state-after.toml differs from the re-adjudicated state from line {}: recorded `{}`, replay gives `{}`",
                line + 1,
                want.lines().nth(line).unwrap_or("<end>"),
                got.lines().nth(line).unwrap_or("<end>")
            ),
        );
    }
    // The resolution wrote outcomes.toml by serialising its outcomes:
    // serialising the replayed ones and comparing bytes is cheaper than
    // parsing the file; only when the bytes differ (another writer's
    // formatting, or a real difference) is it parsed and compared.
    let Some(recorded) = content.get("outcomes.toml") else {
        return;
    };
    let replayed = OutcomesFile { outcomes: res.outcomes };
    let text = toml::to_string(&replayed).unwrap_or_default();
    if text.as_bytes() == recorded.as_slice() {
        return;
    }
    // Both sides as read back from a file, so a why line is the variant
    // its text parses to on either side.
    let (Ok(of), Ok(replayed)) = (parse::<OutcomesFile>(recorded), parse::<OutcomesFile>(text.as_bytes())) else {
        cx.problem(name, "replay: outcomes.toml differs from the re-adjudicated outcomes");
        return;
    };
    match compare_outcomes(&of.outcomes, &replayed.outcomes) {
        Compared::Same => {}
        Compared::Wording { count, first } => cx.report.notes.push(format!(
            "{name}: replay: outcomes.toml differs from the re-adjudicated outcomes in wording only ({count} outcome(s); the first: {first}); kinds, sections, powers, orders, dice, Gold, VP, visibility and places agree"
        )),
        Compared::Data(what) => cx.problem(
            name,
            format!("replay: outcomes.toml differs from the re-adjudicated outcomes: {what}"),
        ),
    }
}

/// How recorded outcomes compare with replayed ones.
#[derive(Debug, PartialEq, Eq)]
enum Compared {
    Same,
    /// Only sentences differ: an engine reworded since the game was played.
    Wording {
        count: usize,
        first: String,
    },
    /// What happened differs: the first difference.
    Data(String),
}

/// Compare outcomes by kind and data ([`crate::rules::Outcome::data`]);
/// the engine's wording may change between the build that played a game
/// and the one that replays it.
fn compare_outcomes(recorded: &[rules::Outcome], replayed: &[rules::Outcome]) -> Compared {
    if recorded.len() != replayed.len() {
        return Compared::Data(format!(
            "{} outcome(s) recorded, {} re-adjudicated",
            recorded.len(),
            replayed.len()
        ));
    }
    let mut worded = Vec::new();
    for (i, (a, b)) in recorded.iter().zip(replayed).enumerate() {
        if a == b {
            continue;
        }
        let (da, db) = (a.data(), b.data());
        if da != db {
            let fields = [
                ("kind", da.kind != db.kind),
                ("rule", da.rule != db.rule),
                ("power", da.power != db.power),
                ("order", da.order != db.order),
                ("why", da.why != db.why),
                ("dice", da.dice != db.dice),
                ("gold", da.gold != db.gold),
                ("vp", da.vp != db.vp),
                ("visibility", da.visibility != db.visibility),
                ("at", da.at != db.at),
            ];
            let differ: Vec<&str> = fields.iter().filter(|f| f.1).map(|f| f.0).collect();
            return Compared::Data(format!(
                "outcome {} ({} {}) differs in {}",
                i + 1,
                a.kind,
                a.rule,
                differ.join(", ")
            ));
        }
        worded.push((a, b));
    }
    match worded.first() {
        None => Compared::Same,
        Some((a, b)) => {
            let first = if a.summary != b.summary {
                format!("recorded `{}`, replay gives `{}`", a.summary, b.summary)
            } else {
                format!("a why line of `{}`", a.summary)
            };
            Compared::Wording {
                count: worded.len(),
                first,
            }
        }
    }
}

/// What [`verify_mails`] found.
#[derive(Clone, Debug, Default)]
pub struct MailReport {
    /// Mails that carry an anchor of this game.
    pub mails: usize,
    pub anchors: usize,
    pub problems: Vec<Problem>,
}

/// Raw messages of a mailbox: a Maildir, a directory of message files
/// (searched recursively; `.json` envelopes skipped), an mbox, or one
/// message file.
fn mailbox(path: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    use anyhow::Context;
    if path.is_dir() {
        let mut files = Vec::new();
        let mut stack = vec![path.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))? {
                let p = e?.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_none_or(|x| x != "json") {
                    files.push(p);
                }
            }
        }
        files.sort();
        return files
            .into_iter()
            .map(|p| {
                let b = fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
                Ok((p.display().to_string(), b))
            })
            .collect();
    }
    let bytes = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.starts_with(b"From ") {
        return Ok(crate::mail::ingest::read_mbox(path)?
            .into_iter()
            .enumerate()
            .map(|(i, b)| (format!("{} message {}", path.display(), i + 1), b))
            .collect());
    }
    Ok(vec![(path.display().to_string(), bytes)])
}

/// Check every anchor the game mailed (docs/dice.md, "Anchors") against
/// the history in `dir`: each chain head names an entry the history has,
/// with that hash (a truncated or rewritten history fails); each
/// commitment, entry and seed is the history's.
pub fn verify_mails(dir: &GameDir, path: &Path) -> Result<MailReport> {
    use mail_parser::MessageParser;
    let head = history::read_head(dir)?;
    let listing = history::list(dir)?;
    // Entry number -> (name, hash, record), for the committed entries.
    let mut entries: BTreeMap<u32, (String, String, EntryRecord)> = BTreeMap::new();
    for (n, name) in listing.iter().filter(|(n, _)| **n <= head.entries) {
        if let Ok((rec, bytes)) = history::read_entry(dir, name) {
            entries.insert(*n, (name.clone(), sha256_hex(&bytes), rec));
        }
    }
    let open = phase::record(dir)?;
    let game = match &open {
        Some(r) => r.game.clone(),
        None => entries.values().next().map(|e| e.2.game.clone()).unwrap_or_default(),
    };
    let genesis = match history::genesis(dir)? {
        Some(g) => history::read_entry(dir, &g).map(|(_, b)| sha256_hex(&b))?,
        None => history::ZERO.to_string(),
    };
    let known = Known {
        head_entries: head.entries,
        genesis,
        entries,
        game,
        open,
    };
    let mut out = MailReport::default();
    for (at, raw) in mailbox(path)? {
        let Some(m) = MessageParser::default().parse(&raw) else {
            continue;
        };
        let Some(text) = m.body_text(0) else { continue };
        let what = format!(
            "mail '{}' of {} ({at})",
            m.subject().unwrap_or(""),
            m.date().map(|d| d.to_rfc3339()).unwrap_or_default()
        );
        let mut counted = false;
        for line in &anchor_lines(&text) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [kw, g, a, b] = f.as_slice() else { continue };
            if *g != known.game || !kw.starts_with("Empereur-") {
                continue;
            }
            if !counted {
                out.mails += 1;
                counted = true;
            }
            out.anchors += 1;
            if let Some(message) = known.check(line, kw, a, b) {
                out.problems.push(Problem {
                    at: what.clone(),
                    message,
                });
            }
        }
    }
    Ok(out)
}

/// The lines of a mail body, an anchor's keyword line joined with the
/// indented line after it (a mail client may fold a long anchor).
fn anchor_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for l in text.lines() {
        match lines.last_mut() {
            Some(last) if l.starts_with([' ', '\t']) && last.starts_with("Empereur-") => {
                last.push(' ');
                last.push_str(l.trim());
            }
            _ => lines.push(l.trim_end().to_string()),
        }
    }
    lines
}

/// What the history holds, to check the anchors of mails against.
struct Known {
    head_entries: u32,
    /// The hash of the genesis entry, the chain head before entry 1
    /// (64 zeros in a game without one).
    genesis: String,
    /// Entry number -> (name, hash, record), for the committed entries.
    entries: BTreeMap<u32, (String, String, EntryRecord)>,
    game: String,
    /// The open phase's commitment.
    open: Option<phase::PhaseRecord>,
}

impl Known {
    /// What is wrong with the anchor `kw a b` of `line`, if anything.
    fn check(&self, line: &str, kw: &str, a: &str, b: &str) -> Option<String> {
        match kw {
            history::CHAIN => self.chain_head(line, a, b),
            history::COMMITMENT => {
                let known = self.entries.values().any(|(_, _, r)| {
                    (r.phase.to_string() == a
                        && (r.commitment.as_deref() == Some(b) || r.abandoned_commitment.as_deref() == Some(b)))
                        || (r.next_phase.map(|p| p.to_string()).as_deref() == Some(a)
                            && r.next_commitment.as_deref() == Some(b))
                        || (r.abandoned_phase.map(|p| p.to_string()).as_deref() == Some(a)
                            && r.abandoned_commitment.as_deref() == Some(b))
                }) || self
                    .open
                    .as_ref()
                    .is_some_and(|o| o.phase.to_string() == a && o.commitment == b);
                (!known).then(|| {
                    format!(
                        "the commitment {} it published for {a} is not in the history: the history was rewritten",
                        short(b)
                    )
                })
            }
            history::ENTRY => match self.entries.values().find(|(name, _, _)| name == a) {
                None => Some(format!("it reports entry {a}, which the history does not have")),
                Some((_, h, _)) if h != b => Some(format!(
                    "it reports entry {a} with hash {}, but the history's hashes to {}: rewritten",
                    short(b),
                    short(h)
                )),
                _ => None,
            },
            history::SEED => {
                let ok = dice::parse_hex32(b).is_ok_and(|seed| {
                    self.entries.values().any(|(_, _, r)| {
                        let c = dice::commitment_with(&self.game, a, &seed, entry_beacon(r).as_ref());
                        r.phase.to_string() == a && r.commitment.as_deref() == Some(c.as_str())
                    })
                });
                (!ok).then(|| {
                    format!("the seed it revealed for {a} is not the seed of any resolution of {a} in the history")
                })
            }
            _ => None,
        }
    }

    /// A chain head `n hash`: the history has entry `n`, hashing to `hash`.
    fn chain_head(&self, line: &str, a: &str, b: &str) -> Option<String> {
        let Ok(n) = a.parse::<u32>() else {
            return Some(format!("'{line}' is not a chain head"));
        };
        if n == 0 {
            return (b != self.genesis).then(|| format!("chain head 0 must be {}", self.genesis));
        }
        if n > self.head_entries {
            return Some(format!(
                "it was sent when the history had {n} entries, but the history has {}: it was truncated",
                self.head_entries
            ));
        }
        match self.entries.get(&n) {
            Some((name, h, _)) if h != b => Some(format!(
                "it names entry {n} with hash {}, but {name} hashes to {}: the history was rewritten",
                short(b),
                short(h)
            )),
            None => Some(format!("entry {n} it names is missing from the history")),
            _ => None,
        }
    }
}
