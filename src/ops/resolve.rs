//! `empereur resolve`: adjudicate the open phase with committed (or
//! manual) dice, write its history entry, open the next phase with a new
//! commitment.
//!
//! Crash safety, step by step (a crash at any point leaves the old phase
//! or the new one; re-running `resolve` or any caller of [`recover`]
//! finishes or undoes the interrupted run):
//! 1. stage the next phase's seed in `phase/next-seed`;
//! 2. write the history entry under `history/.tmp-…`, rename it in place;
//! 3. write `history/head.toml` naming it — **the commit point**;
//! 4. after the country bid (3.1), seat each player on the power it won
//!    (`bid-seats.toml` of the entry, by player: redoing it is harmless);
//!    clear `phase/orders/`; write `state.toml` and move the staged seed
//!    into `phase/seed` and `phase/commitment`; drop `next-seed`.
//!
//! `history/head.toml`, `state.toml`, `phase/seed`, `phase/commitment`
//! and `phase/next-seed` are replaced through spares under `.spare/`
//! (`store::spare`: the new bytes written into the spare, then the two
//! names exchanged), and `next-seed` is dropped by setting it aside to
//! its spare: a resolution frees no inode. A crash before an exchange
//! leaves the live file as it was and the spare with any part of the new
//! bytes; the spares are never read.
//!
//! Before 3, recovery removes the entry and keeps the staged seed (the
//! phase is still open; resolving again gives the same rolls and opens
//! the next phase under the same seed: a crash cannot redraw it). After
//! 3, recovery redoes step 4 from the entry.
#![allow(clippy::disallowed_methods)] // adapter

use super::Done;
use crate::dice::{BeaconValue, Committed, Dice, Entropy, Manual};
use crate::ids::{PhaseId, PowerId};
use crate::rules::{self, EngineError, PhaseOrders};
use crate::store::history::{self, DiceLog, Draft, EntropyFile, LockFile, LockedPower, OutcomesFile};
use crate::store::{self, GameDir, phase, submission};
use anyhow::{Context, Result, anyhow};
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

/// `empereur resolve` arguments.
#[derive(Debug, Clone, Default)]
pub struct ResolveArgs {
    /// The game directory.
    pub game: PathBuf,
    /// Resolve only if this is the open phase (a guard for cron).
    pub phase: Option<String>,
    /// Physical dice rolled by the moderator, in the order the engine asks
    /// (a d10 may be entered as 0 for 10); logged as manual.
    pub manual_dice: Option<String>,
}

/// What the workflow passes to [`resolve_game`].
#[derive(Clone, Debug, Default)]
pub struct ResolveOptions {
    /// Refuse unless this is the open phase.
    pub phase: Option<String>,
    /// Manual dice list (`7,3,10`) instead of committed dice.
    pub manual_dice: Option<String>,
    /// Journal timestamp (RFC 3339); the current time when `None`.
    pub now: Option<String>,
    /// Powers that sent nothing by the end of grace (the workflow's
    /// deadline); the report says their defaults applied.
    pub late: Vec<PowerId>,
    /// The beacon round already fetched for this phase (`run` fetches it
    /// before the lock); fetched here when `None` and the phase needs one.
    pub beacon: Option<BeaconValue>,
}

/// What a resolution did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolveSummary {
    /// History entry directory, `NNNN-<phase>`.
    pub entry: String,
    pub resolved: PhaseId,
    pub next: PhaseId,
    /// Commitment of the newly opened phase.
    pub commitment: String,
    pub rolls: usize,
    pub manual: bool,
    pub outcomes: usize,
    /// Set when the game ended with this phase.
    pub over: Option<String>,
}

/// Resolved, or refused for a domain reason (exit 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    Done(ResolveSummary),
    Refused(String),
}

/// `empereur resolve`: resolve the open phase and start its successor's
/// clock; what happened is the returned [`Resolved`].
pub fn run(a: &ResolveArgs) -> Result<Resolved> {
    let dir = GameDir::new(&a.game);
    let opts = ResolveOptions {
        phase: a.phase.clone(),
        manual_dice: a.manual_dice.clone(),
        now: None,
        late: Vec::new(),
        beacon: None,
    };
    let resolved = resolve_game(&dir, &opts)?;
    if let Resolved::Done(_) = resolved {
        super::workflow::start_clock_now(&dir)?;
    }
    Ok(resolved)
}

impl std::fmt::Display for Resolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Resolved::Done(s) => {
                writeln!(
                    f,
                    "resolved {} ({} outcome(s), {} {} roll(s)) -> history/{}",
                    s.resolved,
                    s.outcomes,
                    s.rolls,
                    if s.manual { "manual" } else { "committed" },
                    s.entry
                )?;
                match &s.over {
                    Some(w) => writeln!(f, "the game is over: {w}"),
                    None => writeln!(f, "opened {} with dice commitment {}", s.next, s.commitment),
                }
            }
            Resolved::Refused(why) => writeln!(f, "not resolved: {why}"),
        }
    }
}

impl super::Summary for Resolved {
    fn done(&self) -> Done {
        match self {
            Resolved::Done(_) => Done::Yes,
            Resolved::Refused(_) => Done::No,
        }
    }
}

fn now_or(opts: &ResolveOptions) -> String {
    opts.now
        .clone()
        .unwrap_or_else(|| chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// The adjudicator: [`rules::resolve`], or a stand-in in tests.
pub type Engine = fn(
    &crate::scenario::Scenario,
    &crate::state::State,
    &PhaseOrders,
    &mut dyn Dice,
) -> Result<rules::Resolution, EngineError>;

/// Resolve the open phase of the game in `dir` (takes the game lock).
/// If an earlier run crashed after its commit point, this run finishes
/// that resolution and reports it instead of resolving another phase.
pub fn resolve_game(dir: &GameDir, opts: &ResolveOptions) -> Result<Resolved> {
    resolve_game_with(dir, opts, rules::resolve)
}

/// As [`resolve_game`] with another engine (tests that need rolls while
/// the rules engine makes none).
pub fn resolve_game_with(dir: &GameDir, opts: &ResolveOptions, engine: Engine) -> Result<Resolved> {
    let _lock = dir.lock()?;
    // Group commit: the entry's files, the staged seed, the new state
    // are fsynced together before the head and before the staged seed
    // goes (see `store::durable`).
    let group = store::durable::group();
    let r = resolve_with_lock_held(dir, opts, engine, Given::new())?;
    group.commit()?;
    Ok(r)
}

/// As [`resolve_game`] for a caller that already holds the game lock
/// (`run` holds it across fetch, ingest, resolve and send).
pub fn resolve_game_locked(dir: &GameDir, opts: &ResolveOptions) -> Result<Resolved> {
    resolve_with_lock_held(dir, opts, rules::resolve, Given::new())
}

/// Submissions a caller hands to the resolution without storing them
/// in `phase/orders/` (`autoplay`'s generated orders): each counts as
/// its power's stored submission would, stored as the bytes
/// [`submission::to_text`] gives (the history's `orders/<power>.toml`,
/// whose hash is the power's entropy). A power with a stored submission
/// keeps it.
pub type Given = BTreeMap<PowerId, submission::Submission>;

/// As [`resolve_game_locked`], with `given` submissions beside the
/// stored ones. They are not files: a crash before the commit point
/// loses them (they were never promised to anyone), and after it the
/// history holds their bytes. A resolution that only finishes an
/// interrupted one (see [`recover`]) does not use them.
pub fn resolve_game_locked_given(dir: &GameDir, opts: &ResolveOptions, given: Given) -> Result<Resolved> {
    resolve_with_lock_held(dir, opts, rules::resolve, given)
}

fn resolve_with_lock_held(dir: &GameDir, opts: &ResolveOptions, engine: Engine, given: Given) -> Result<Resolved> {
    let rec = recover(dir)?;
    if let Some(name) = rec.finished {
        let when = now_or(opts);
        dir.journal_line(
            &when,
            &format!("resolve: finished the interrupted resolution history/{name}"),
        )?;
        return Ok(Resolved::Done(summary_of(dir, &name)?));
    }
    resolve_locked(dir, opts, engine, given)
}

/// What [`recover`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// One line per thing done.
    pub lines: Vec<String>,
    /// The committed entry whose resolution was finished, if any.
    pub finished: Option<String>,
}

/// Finish or undo a resolution interrupted by a crash (call with the game
/// lock held).
pub fn recover(dir: &GameDir) -> Result<Recovery> {
    let mut out = Recovery {
        lines: history::discard_uncommitted(dir)?
            .into_iter()
            .map(|n| format!("removed uncommitted history entry {n}"))
            .collect(),
        finished: None,
    };
    let Some(staged) = phase::staged_commitment(dir)? else {
        return Ok(out);
    };
    let head = history::read_head(dir)?;
    let last = if head.entries > 0 {
        Some(history::read_entry(dir, &head.last)?.0)
    } else {
        None
    };
    match last {
        Some(rec) if rec.next_commitment.as_deref() == Some(staged.as_str()) => {
            finish(dir, &head.last, &rec.game)?;
            out.lines
                .push(format!("finished the resolution recorded in history/{}", head.last));
            out.finished = Some(head.last.clone());
        }
        // Otherwise the staged seed is kept, silently: resolving again
        // opens the next phase under the same seed (stage_next reuses
        // it), so a crash cannot redraw it.
        _ => {}
    }
    Ok(out)
}

fn summary_of(dir: &GameDir, name: &str) -> Result<ResolveSummary> {
    let (rec, _) = history::read_entry(dir, name)?;
    let root = history::entry_dir(dir, name);
    let rolls: DiceLog = toml::from_str(&store::read_text(&root.join("dice.toml"))?)
        .map_err(|e| anyhow!("{}/dice.toml: {}", root.display(), e.message().trim()))?;
    let outcomes: OutcomesFile = toml::from_str(&store::read_text(&root.join("outcomes.toml"))?)
        .map_err(|e| anyhow!("{}/outcomes.toml: {}", root.display(), e.message().trim()))?;
    let state = dir.load_state()?;
    Ok(ResolveSummary {
        entry: name.to_string(),
        resolved: rec.phase,
        next: rec.next_phase.unwrap_or(state.phase),
        commitment: rec.next_commitment.unwrap_or_default(),
        rolls: rolls.rolls.len(),
        manual: rolls.rolls.iter().any(|r| r.source == crate::dice::RollSource::Manual),
        outcomes: outcomes.outcomes.len(),
        over: state.over,
    })
}

/// Step 4: make the committed entry `name` the current state. Idempotent.
fn finish(dir: &GameDir, name: &str, game: &str) -> Result<()> {
    apply_bid_seats(dir, name)?;
    let after = history::entry_dir(dir, name).join("state-after.toml");
    let bytes = fs::read(&after).with_context(|| format!("cannot read {}", after.display()))?;
    clear_orders(dir)?;
    phase::clear_previews(dir)?;
    // The state, seed and commitment through their spares in one step
    // (`store::spare`), then `next-seed` set aside.
    phase::promote_next(dir, game, &[(&dir.state(), &bytes)])
}

/// 3.1: who plays which power after the country bid, by the player's
/// place in `game.toml` (so that applying it twice changes nothing).
#[derive(serde::Serialize, serde::Deserialize, Debug, Default)]
pub(crate) struct BidSeats {
    #[serde(default)]
    pub seat: Vec<BidSeat>,
}

#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub(crate) struct BidSeat {
    /// Index of the player in `game.toml`'s `[[player]]` list.
    pub player: usize,
    pub name: String,
    /// The provisional seat the player bid under.
    pub bid_as: PowerId,
    /// The power the bid gave the player.
    pub plays: PowerId,
}

const BID_SEATS: &str = "bid-seats.toml";

/// The seats the bid's outcomes give the players of `config` (3.1: the
/// `bid-assignment` outcome names the seat as its order, the power won
/// as its power).
fn bid_seats(config: &store::GameConfig, outcomes: &[rules::Outcome]) -> BidSeats {
    let seat = outcomes
        .iter()
        .filter(|o| o.kind == rules::Kind::BidAssignment)
        .filter_map(|o| {
            let bid_as: PowerId = o.order.as_deref()?.parse().ok()?;
            let plays = o.power?;
            let player = config.players.iter().position(|p| p.power == bid_as)?;
            Some(BidSeat {
                player,
                name: config.players[player].name.clone(),
                bid_as,
                plays,
            })
        })
        .collect();
    BidSeats { seat }
}

/// The seats the country bid of entry `name` gave (3.1), or `None` for
/// an entry that was not a bid.
pub(crate) fn recorded_bid_seats(dir: &GameDir, name: &str) -> Result<Option<BidSeats>> {
    let path = history::entry_dir(dir, name).join(BID_SEATS);
    if !path.is_file() {
        return Ok(None);
    }
    let seats =
        toml::from_str(&store::read_text(&path)?).map_err(|e| anyhow!("{}: {}", path.display(), e.message().trim()))?;
    Ok(Some(seats))
}

/// Seat the players on the powers the bid of entry `name` gave them
/// (nothing for an entry that was not a bid).
fn apply_bid_seats(dir: &GameDir, name: &str) -> Result<()> {
    let Some(seats) = recorded_bid_seats(dir, name)? else {
        return Ok(());
    };
    let path = history::entry_dir(dir, name).join(BID_SEATS);
    let mut config = dir.load_config()?;
    let mut changed = false;
    for s in &seats.seat {
        let Some(p) = config.players.get_mut(s.player) else {
            anyhow::bail!("{}: no player number {} in game.toml", path.display(), s.player + 1);
        };
        if p.power != s.plays {
            p.power = s.plays;
            changed = true;
        }
    }
    if changed {
        store::atomic_write(&dir.config(), config.to_toml().as_bytes()).context("writing game.toml")?;
    }
    Ok(())
}

/// The outcomes a resolution puts before the engine's: one `no-orders`
/// per late power (3.7), and after an undo one saying what changed.
/// Replay adds the same from the entry's `late`, `redo_of` and `changed`.
pub fn preface_outcomes(late: &[PowerId], redo_of: Option<&str>, changed: &[PowerId]) -> Vec<rules::Outcome> {
    let mut out: Vec<rules::Outcome> = late
        .iter()
        .map(|p| {
            rules::Outcome::new(
                "3.7",
                rules::Kind::NoOrders,
                format!(
                    "{} sent no orders by the deadline; its standing orders and the documented defaults applied",
                    p.name()
                ),
            )
            .power(*p)
        })
        .collect();
    if let Some(entry) = redo_of {
        let what = if changed.is_empty() {
            "no orders changed".to_string()
        } else {
            format!(
                "orders or entropy changed for {}",
                changed.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
            )
        };
        out.push(rules::Outcome::new(
            "2.42",
            rules::Kind::ReResolved,
            format!(
                "this phase is resolved again after the undo of history/{entry}: {what}; the seed, commitment and entropy are kept, so every roll for the same purpose is the same die"
            ),
        ));
    }
    out
}

/// The resolution an undo rolled back, when the open phase was reopened
/// by it: the latest entry that opened a phase is an `undo` entry whose
/// `undone` resolved this phase.
struct Redo {
    entry: String,
    entropy_bytes: Vec<u8>,
    entropy: Entropy,
    /// Each power's order texts and typed entropy in the undone resolution.
    orders: BTreeMap<PowerId, (Vec<String>, Option<String>)>,
    /// The beacon round and signature of the undone resolution (kept with
    /// its key).
    beacon: Option<BeaconValue>,
}

fn pending_redo(dir: &GameDir, open: PhaseId) -> Result<Option<Redo>> {
    for name in history::list(dir)?.values().rev() {
        let (rec, _) = history::read_entry(dir, name)?;
        if rec.next_commitment.is_none() {
            continue;
        }
        let (Some(undone), true) = (rec.undone, rec.kind == "undo" && rec.next_phase == Some(open)) else {
            return Ok(None);
        };
        let root = history::entry_dir(dir, &undone);
        let path = root.join("entropy.toml");
        let entropy_bytes = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let ef: EntropyFile = toml::from_str(std::str::from_utf8(&entropy_bytes).unwrap_or_default())
            .map_err(|e| anyhow!("{}: {}", path.display(), e.message().trim()))?;
        let mut orders = BTreeMap::new();
        for p in PowerId::ALL {
            let f = root.join("orders").join(format!("{}.toml", p.id()));
            if f.is_file() {
                let sub: submission::Submission = toml::from_str(&store::read_text(&f)?)
                    .with_context(|| format!("{} is not a valid submission", f.display()))?;
                orders.insert(p, (sub.orders.iter().map(|o| o.text.clone()).collect(), sub.entropy));
            }
        }
        let (urec, _) = history::read_entry(dir, &undone)?;
        let beacon = recorded_beacon(&urec).map_err(|e| anyhow!("history/{undone}: {e}"))?;
        return Ok(Some(Redo {
            entry: undone,
            entropy_bytes,
            entropy: ef.entropy,
            orders,
            beacon,
        }));
    }
    Ok(None)
}

fn clear_orders(dir: &GameDir) -> Result<()> {
    let d = dir.phase_orders();
    if d.is_dir() {
        for e in fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))? {
            let p = e?.path();
            if p.is_file() {
                fs::remove_file(&p).with_context(|| format!("cannot remove {}", p.display()))?;
            }
        }
        store::sync_dir(&d);
    }
    Ok(())
}

fn now_time(opts: &ResolveOptions) -> chrono::DateTime<chrono::Utc> {
    opts.now
        .as_deref()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc))
        .unwrap_or_else(chrono::Utc::now)
}

/// What a resolution of the open phase takes in, and the lock saying so.
struct Inputs {
    subs: BTreeMap<PowerId, submission::Submission>,
    orders: PhaseOrders,
    sub_bytes: BTreeMap<PowerId, Vec<u8>>,
    entropy: Entropy,
    /// The kept `entropy.toml` of a re-resolution after an undo.
    entropy_bytes: Option<Vec<u8>>,
    redo: Option<Redo>,
    changed: Vec<PowerId>,
    lock: LockFile,
}

fn inputs(
    dir: &GameDir,
    game: &str,
    open: PhaseId,
    commitment: &str,
    manual: Option<&str>,
    beacon: Option<&BeaconValue>,
    given: Given,
) -> Result<Inputs> {
    let mut subs = submission::load_all(dir)?;
    let mut given_bytes = BTreeMap::new();
    for (p, s) in given {
        if let std::collections::btree_map::Entry::Vacant(e) = subs.entry(p) {
            given_bytes.insert(p, submission::to_text(&s)?.into_bytes());
            e.insert(s);
        }
    }
    let mut orders = PhaseOrders::new();
    let mut entropy = Entropy::new();
    let mut sub_bytes = BTreeMap::new();
    for (p, s) in &subs {
        orders.insert(*p, s.orders.clone());
        let bytes = match given_bytes.remove(p) {
            Some(b) => b,
            None => submission_bytes(dir, *p, s)?,
        };
        // docs/dice.md 2: the receipt of a player's own mail is its
        // power's entropy, with any typed ENTROPY text after it. Orders
        // the moderator enters (submit, autoplay) add none: trying
        // candidate orders then changes which rolls are asked, never
        // their results.
        if s.by_player() {
            let receipt = submission::receipt_of(&bytes);
            entropy.insert(*p, crate::dice::power_entropy(&receipt, s.entropy.as_deref()));
        }
        sub_bytes.insert(*p, bytes);
    }
    // A phase reopened by an undo keeps the key of the resolution rolled
    // back: same seed, same entropy, so every purpose rolls the same die.
    let redo = pending_redo(dir, open)?;
    let mut entropy_bytes = None;
    let mut changed = Vec::new();
    if let Some(r) = &redo {
        entropy = r.entropy.clone();
        entropy_bytes = Some(r.entropy_bytes.clone());
        for p in PowerId::ALL {
            let now = subs.get(&p).map(|s| {
                (
                    s.orders.iter().map(|o| o.text.clone()).collect::<Vec<_>>(),
                    s.entropy.clone(),
                )
            });
            let then = r.orders.get(&p).cloned();
            if now != then {
                changed.push(p);
            }
        }
    }
    let lock = LockFile {
        game: game.to_string(),
        phase: open,
        commitment: commitment.to_string(),
        dice: if manual.is_some() { "manual" } else { "committed" }.to_string(),
        manual_dice: manual.map(str::to_string),
        redo_of: redo.as_ref().map(|r| r.entry.clone()),
        beacon: beacon.map(|b| b.network.clone()),
        beacon_round: beacon.map(|b| b.round),
        beacon_signature: beacon.map(|b| crate::dice::to_hex(&b.signature)),
        powers: sub_bytes
            .iter()
            .map(|(p, b)| {
                let by = if subs[p].by_player() { "player" } else { "moderator" };
                (
                    *p,
                    LockedPower {
                        by: by.to_string(),
                        receipt: submission::receipt_of(b),
                        entropy: entropy.get(p).cloned().unwrap_or_default(),
                    },
                )
            })
            .collect(),
    };
    Ok(Inputs {
        subs,
        orders,
        sub_bytes,
        entropy,
        entropy_bytes,
        redo,
        changed,
        lock,
    })
}

/// Where the open phase stands with its public beacon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PhaseBeacon {
    /// Its commitment names no beacon round.
    None,
    /// The round is in and its signature verifies.
    Ready(BeaconValue),
    /// The round is not published yet: the phase waits (nobody, the
    /// moderator included, can know its dice before then).
    Wait {
        network: String,
        round: u64,
        at: chrono::DateTime<chrono::Utc>,
    },
}

/// The beacon of the open phase: none, the signature of its round (kept
/// from the undone resolution after an undo, `given` when it is that
/// round, else fetched), or not yet published. Call with the game lock.
pub fn phase_beacon(
    dir: &GameDir,
    config: &crate::store::GameConfig,
    now: chrono::DateTime<chrono::Utc>,
    given: Option<&BeaconValue>,
) -> Result<PhaseBeacon> {
    let Some(rec) = phase::record(dir)? else {
        return Ok(PhaseBeacon::None);
    };
    let Some(b) = rec.beacon() else {
        return Ok(PhaseBeacon::None);
    };
    let value = match pending_redo(dir, rec.phase)?.and_then(|r| r.beacon) {
        Some(v) => v,
        None => match given {
            Some(v) if v.network == b.network && v.round == b.round => v.clone(),
            _ => match super::beacon::fetch(config, &b, now)? {
                super::beacon::Fetched::Ready(v) => v,
                super::beacon::Fetched::NotYet { at } => {
                    return Ok(PhaseBeacon::Wait {
                        network: b.network,
                        round: b.round,
                        at,
                    });
                }
            },
        },
    };
    if value.network != b.network || value.round != b.round {
        anyhow::bail!(
            "the beacon for {} is {} round {}, but its commitment names {} round {}",
            rec.phase,
            value.network,
            value.round,
            b.network,
            b.round
        );
    }
    value.verify().map_err(|e| anyhow!("{e}"))?;
    Ok(PhaseBeacon::Ready(value))
}

/// The beacon value an entry records (`beacon`, `beacon_round`,
/// `beacon_signature`), if it has one.
pub fn recorded_beacon(rec: &history::EntryRecord) -> Result<Option<BeaconValue>, String> {
    match (&rec.beacon, rec.beacon_round, &rec.beacon_signature) {
        (Some(n), Some(r), Some(sig)) => Ok(Some(BeaconValue {
            network: n.clone(),
            round: r,
            signature: hex::decode(sig.trim()).map_err(|e| format!("beacon_signature is not hex: {e}"))?,
        })),
        _ => Ok(None),
    }
}

/// The phrase a waiting phase is reported with.
pub fn waiting_line(phase: PhaseId, network: &str, round: u64, at: chrono::DateTime<chrono::Utc>) -> String {
    format!(
        "{phase} waits for the dice beacon: {network} round {round} is published at {} (the orders are not locked until then)",
        at.format("%Y-%m-%d %H:%M:%S UTC")
    )
}

/// The open phase as the files hold it, checked against its published
/// commitment.
struct Opened {
    config: store::GameConfig,
    /// `state.toml` as read, kept byte for byte as `state-before.toml`.
    state_bytes: Vec<u8>,
    state: crate::state::State,
    scenario: std::sync::Arc<crate::scenario::Scenario>,
    rec: phase::PhaseRecord,
    seed: crate::dice::Seed,
}

/// What the engine made of the open phase, before it is written.
struct Adjudicated {
    res: rules::Resolution,
    rolls: Vec<crate::dice::Roll>,
    seated: Vec<PowerId>,
    redo_of: Option<String>,
}

/// A domain refusal (`Err`) or the value to go on with.
type Step<T> = Result<Result<T, String>>;

fn resolve_locked(dir: &GameDir, opts: &ResolveOptions, engine: Engine, given: Given) -> Result<Resolved> {
    let open = match open_phase(dir, opts)? {
        Ok(open) => open,
        Err(why) => return Ok(Resolved::Refused(why)),
    };
    // docs/dice.md 2a: a phase whose commitment names a beacon round is
    // resolved only once that round is out, and its key folds it in.
    let beacon = match phase_beacon(dir, &open.config, now_time(opts), opts.beacon.as_ref())? {
        PhaseBeacon::None => None,
        PhaseBeacon::Ready(v) => Some(v),
        PhaseBeacon::Wait { network, round, at } => {
            return Ok(Resolved::Refused(waiting_line(open.state.phase, &network, round, at)));
        }
    };
    // docs/dice.md 4: typed dice only in a phase whose opening said the
    // dice would be physical; otherwise the moderator could read the
    // committed dice first and type others if he liked them less.
    if opts.manual_dice.is_some() && open.rec.dice.as_deref() != Some(MANUAL) {
        return Ok(Resolved::Refused(format!(
            "--manual-dice is refused: phase {} was not announced with physical dice before it opened (`empereur physical-dice --phase {}` before the resolution that opens it), so its dice are the committed ones",
            open.state.phase, open.state.phase
        )));
    }
    let inputs = inputs(
        dir,
        &open.state.game,
        open.state.phase,
        &open.rec.commitment,
        opts.manual_dice.as_deref(),
        beacon.as_ref(),
        given,
    )?;
    // A submission stored for another phase must never be carried out in
    // this one (ingest checks the phase under the lock; this is the
    // last guard).
    if let Some((p, s)) = inputs.subs.iter().find(|(_, s)| s.phase != open.state.phase) {
        return Ok(Resolved::Refused(format!(
            "{} holds orders for phase {}, but the open phase is {}; move it aside (or submit again) and resolve",
            submission::path(dir, *p).display(),
            s.phase,
            open.state.phase
        )));
    }
    let adj = match adjudicate(&open, &inputs, opts, beacon.as_ref(), engine)? {
        Ok(adj) => adj,
        Err(why) => return Ok(Resolved::Refused(why)),
    };
    write_entry(dir, opts, open, inputs, beacon.as_ref(), adj)
}

/// Load the open phase and check its seed against the published
/// commitment; refuse a game that is over or a phase not asked for.
fn open_phase(dir: &GameDir, opts: &ResolveOptions) -> Step<Opened> {
    let config = dir.load_config()?;
    let state_bytes = fs::read(dir.state()).with_context(|| format!("cannot read {}", dir.state().display()))?;
    let state = dir.load_state()?;
    if let Some(w) = &state.over {
        return Ok(Err(format!("the game is over ({w})")));
    }
    if let Some(p) = &opts.phase {
        let asked: PhaseId = p.parse().map_err(|e: String| anyhow!(e))?;
        if asked != state.phase {
            return Ok(Err(format!("the open phase is {}, not {asked}", state.phase)));
        }
    }
    let scenario = dir.load_scenario(&config)?;
    let rec = phase::record(dir)?.ok_or_else(|| {
        anyhow!(
            "{} is missing: the open phase has no dice commitment",
            phase::commitment_path(dir).display()
        )
    })?;
    if rec.phase != state.phase || rec.game != state.game {
        anyhow::bail!(
            "{} commits to {} {}, but the open phase is {} {}",
            phase::commitment_path(dir).display(),
            rec.game,
            rec.phase,
            state.game,
            state.phase
        );
    }
    let seed = phase::read_seed(dir)?;
    let c = crate::dice::commitment_with(&state.game, &state.phase.to_string(), &seed, rec.beacon().as_ref());
    if c != rec.commitment {
        anyhow::bail!(
            "{} does not match the published commitment {} (it gives {c})",
            phase::seed_path(dir).display(),
            rec.commitment
        );
    }
    Ok(Ok(Opened {
        config,
        state_bytes,
        state,
        scenario,
        rec,
        seed,
    }))
}

/// Roll the committed (or manual) dice through the engine, then add what
/// the files record beside the orders: the late powers and an undo's
/// changes before, the players seated at a Turn Start (3.2) after.
fn adjudicate(
    open: &Opened,
    inputs: &Inputs,
    opts: &ResolveOptions,
    beacon: Option<&BeaconValue>,
    engine: Engine,
) -> Step<Adjudicated> {
    let manual = opts.manual_dice.is_some();
    let mut dice: Box<dyn Dice> = match &opts.manual_dice {
        Some(list) => Box::new(Manual::parse(list).map_err(|e| anyhow!("--manual-dice: {e}"))?),
        None => Box::new(Committed::from_key(crate::dice::derive_key_with(
            &open.seed,
            &inputs.entropy,
            beacon,
        ))),
    };
    let mut res = match engine(&open.scenario, &open.state, &inputs.orders, dice.as_mut()) {
        Ok(r) => r,
        Err(EngineError::GameOver) => return Ok(Err("the game is over".into())),
        Err(EngineError::Dice(e)) if manual => anyhow::bail!("--manual-dice: {e}"),
        Err(e) => anyhow::bail!("resolving {}: {e}", open.state.phase),
    };
    if manual {
        dice.finish().map_err(|e| anyhow!("--manual-dice: {e}"))?;
    }
    // The report says who was late and what an undo changed; the entry
    // records both so that replay adds the same outcomes.
    let redo_of = inputs.redo.as_ref().map(|r| r.entry.clone());
    let preface = preface_outcomes(&opts.late, redo_of.as_deref(), &inputs.changed);
    res.outcomes.splice(0..0, preface);
    // 3.2: a player the moderator seated on an NPC takes the seat when a
    // Turn Start opens; the entry records who, so replay does the same.
    let seated = seats_due(&open.config, &open.state, &res.state);
    res.outcomes
        .extend(rules::seating::seat_players(&mut res.state, &seated));
    Ok(Ok(Adjudicated {
        rolls: dice.log().to_vec(),
        res,
        seated,
        redo_of,
    }))
}

/// docs/dice.md 9: said in the entry's note and the report of a phase
/// resolved with committed dice, no entropy from a player's mail and no
/// beacon.
pub const FORESEEABLE: &str =
    "no player's mail added entropy and there is no beacon: the moderator could know these dice before the lock";

/// Whether the holder of the seed could know a resolution's dice before
/// the lock: committed rolls, no entropy from a player's mail, no beacon.
pub fn foreseeable(entropy: &Entropy, beacon: bool, rolls: &[crate::dice::Roll]) -> bool {
    !beacon
        && entropy.values().all(String::is_empty)
        && rolls.iter().any(|r| r.source == crate::dice::RollSource::Committed)
}

/// `dice` of a phase announced with physical dice (`phase/commitment`,
/// `next_dice` of the entry that opened it).
pub const MANUAL: &str = "manual";

/// The kind of the history entry a preview writes.
pub const PREVIEW: &str = "preview";

/// How many `preview` entries follow the latest entry that opened a
/// phase: the previews of the open phase (docs/dice.md 9).
pub fn previews_since_open(dir: &GameDir) -> Result<u32> {
    let head = history::read_head(dir)?;
    let mut n = 0;
    for (num, name) in history::list(dir)?.into_iter().rev() {
        if num > head.entries {
            continue;
        }
        let (rec, _) = history::read_entry(dir, &name)?;
        if rec.next_commitment.is_some() {
            break;
        }
        if rec.kind == PREVIEW {
            n += 1;
        }
    }
    Ok(n)
}

/// The moderator's notes of an entry: manual dice, previews run before,
/// orders entered by hand.
fn entry_note(
    dir: &GameDir,
    opts: &ResolveOptions,
    subs: &BTreeMap<PowerId, submission::Submission>,
    foreseeable: bool,
) -> Result<String> {
    let mut notes = Vec::new();
    if let Some(list) = &opts.manual_dice {
        notes.push(format!("resolved with manual dice entered by the moderator: {list}"));
    }
    let previews = previews_since_open(dir)?;
    if previews > 0 {
        notes.push(format!(
            "{previews} preview(s) with throwaway seeds were run before this resolution"
        ));
    }
    let by_mod: Vec<&str> = subs
        .iter()
        .filter(|(_, s)| !s.by_player())
        .map(|(p, _)| p.id())
        .collect();
    if !by_mod.is_empty() {
        notes.push(format!("orders entered by the moderator for: {}", by_mod.join(", ")));
    }
    if foreseeable {
        notes.push(FORESEEABLE.to_string());
    }
    Ok(notes.join("; "))
}

/// Stage the next phase's seed, write the history entry, commit it and
/// open the next phase (steps 1-4 of the module doc).
fn write_entry(
    dir: &GameDir,
    opts: &ResolveOptions,
    open: Opened,
    inputs: Inputs,
    beacon: Option<&BeaconValue>,
    adj: Adjudicated,
) -> Result<Resolved> {
    let Opened {
        config,
        state_bytes,
        state,
        scenario,
        rec,
        seed,
    } = open;
    let Adjudicated {
        res,
        rolls,
        seated,
        redo_of,
    } = adj;
    let manual = opts.manual_dice.is_some();
    let next = res.state.phase;
    let after_text = res.state.to_toml();
    let next_beacon = super::beacon::round_for(&config, next, now_time(opts))?;
    let next_commitment = phase::stage_next(dir, &state.game, next, next_beacon.as_ref())?;

    let mut draft = Draft::new("resolve", &state.game, state.phase);
    draft.commitment = Some(rec.commitment.clone());
    draft.next_phase = Some(next);
    draft.next_commitment = Some(next_commitment.clone());
    draft.late = opts.late.clone();
    if let Some(b) = rec.beacon() {
        draft.beacon = Some(b.network);
        draft.beacon_round = Some(b.round);
    }
    draft.beacon_signature = beacon.map(|b| crate::dice::to_hex(&b.signature));
    draft.redo_of = redo_of;
    let seen = foreseeable(&inputs.entropy, beacon.is_some(), &rolls);
    draft.note = entry_note(dir, opts, &inputs.subs, seen)?;
    draft.next_dice = phase::physical_announced(dir, next)?.then(|| MANUAL.to_string());
    draft.changed = inputs.changed;
    draft.seated = seated;
    draft.file("state-before.toml", state_bytes);
    draft.file(
        "lock.toml",
        toml::to_string(&inputs.lock).context("serialising lock.toml")?,
    );
    for (p, bytes) in inputs.sub_bytes {
        draft.file(&format!("orders/{}.toml", p.id()), bytes);
    }
    draft.file("seed", format!("{}\n", crate::dice::to_hex(&seed)));
    let entropy_text = match inputs.entropy_bytes {
        Some(b) => b,
        None => toml::to_string(&EntropyFile {
            entropy: inputs.entropy.clone(),
        })
        .context("serialising entropy.toml")?
        .into_bytes(),
    };
    draft.file("entropy.toml", entropy_text);
    let log = DiceLog { rolls: rolls.clone() };
    draft.file("dice.toml", store::to_toml(&log).context("serialising dice.toml")?);
    let of = OutcomesFile {
        outcomes: res.outcomes.clone(),
    };
    draft.file(
        "outcomes.toml",
        store::to_toml(&of).context("serialising outcomes.toml")?,
    );
    draft.file("state-after.toml", after_text);
    if state.phase.step == crate::ids::Step::Bid {
        let seats = bid_seats(&config, &res.outcomes);
        draft.file(BID_SEATS, store::to_toml(&seats).context("serialising bid-seats.toml")?);
    }
    draft.file(
        "report.txt",
        history::render_report(&state.game, state.phase, &res.outcomes, &rolls),
    );

    let (info, entry_toml) = history::stage(dir, &draft)?;
    history::commit(dir, &info)?; // the commit point
    finish(dir, &info.name, &state.game)?;
    // The entry's public page beside the history, from the states in
    // memory, so that the site parses none (docs/site.md).
    super::site::public_page(&super::site::Resolved {
        dir,
        scenario: &scenario,
        config: &config,
        name: &info.name,
        entry_toml: &entry_toml,
        files: &draft.files,
        outcomes: &res.outcomes,
        before: &state,
        after: &res.state,
    });
    let when = now_or(opts);
    dir.journal_line(
        &when,
        &format!(
            "resolve {} -> history/{} ({} roll(s){}); opened {} commitment {}",
            state.phase,
            info.name,
            rolls.len(),
            if manual { ", manual dice" } else { "" },
            next,
            next_commitment
        ),
    )?;
    Ok(Resolved::Done(ResolveSummary {
        entry: info.name,
        resolved: state.phase,
        next,
        commitment: next_commitment,
        rolls: rolls.len(),
        manual,
        outcomes: res.outcomes.len(),
        over: res.state.over.clone(),
    }))
}

/// The accepted submission as stored (`phase/orders/<power>.toml`), or
/// serialised when the store keeps it elsewhere.
fn submission_bytes(dir: &GameDir, p: PowerId, s: &submission::Submission) -> Result<Vec<u8>> {
    let path = dir.phase_orders().join(format!("{}.toml", p.id()));
    if path.is_file() {
        return fs::read(&path).with_context(|| format!("cannot read {}", path.display()));
    }
    toml::to_string(s)
        .map(String::into_bytes)
        .with_context(|| format!("serialising the orders of {}", p.id()))
}

/// Accepted orders of every power as the engine sees them (verify replay).
pub fn orders_of(subs: &BTreeMap<PowerId, submission::Submission>) -> PhaseOrders {
    subs.iter().map(|(p, s)| (*p, s.orders.clone())).collect()
}

/// The NPCs with a player in `game.toml` that become Player Countries as
/// the resolution of `before` opens `after` (3.2, `rules::seating::due`).
pub fn seats_due(
    config: &store::GameConfig,
    before: &crate::state::State,
    after: &crate::state::State,
) -> Vec<PowerId> {
    let seated: Vec<PowerId> = config.players.iter().map(|p| p.power).collect();
    rules::seating::due(before, after, &seated)
}

/// Record a moderator action that replaces the state (a correction) as a
/// history entry of `kind`, with `state-before.toml`, `state-after.toml`
/// and `files`, reveal the abandoned phase's seed, and open the new
/// state's phase under a fresh commitment. Same commit point and
/// recovery as a resolution. Call with the game lock held.
pub fn record_state_change(
    dir: &GameDir,
    kind: &str,
    note: &str,
    new_state: &crate::state::State,
    files: BTreeMap<String, Vec<u8>>,
) -> Result<history::EntryInfo> {
    record_change(dir, kind, note, new_state, files, None)
}

/// Roll back the resolution recorded in entry `undone`: the undo entry is
/// named after the phase it reopens, reveals the seed of the phase that
/// was open (abandoned), and reopens the phase under its own seed and
/// commitment, so resolving it again gives the same die for each purpose.
pub fn record_undo(
    dir: &GameDir,
    undone: &str,
    note: &str,
    new_state: &crate::state::State,
    files: BTreeMap<String, Vec<u8>>,
) -> Result<history::EntryInfo> {
    record_change(dir, "undo", note, new_state, files, Some(undone))
}

fn record_change(
    dir: &GameDir,
    kind: &str,
    note: &str,
    new_state: &crate::state::State,
    files: BTreeMap<String, Vec<u8>>,
    undone: Option<&str>,
) -> Result<history::EntryInfo> {
    recover(dir)?;
    let before = fs::read(dir.state()).with_context(|| format!("cannot read {}", dir.state().display()))?;
    let old = dir.load_state()?;
    // The open phase is abandoned: reveal its seed under its commitment,
    // so nobody need wonder whether the moderator peeked at it before
    // choosing to roll back.
    let discarded = match (phase::record(dir)?, phase::read_seed(dir)) {
        (Some(r), Ok(seed)) => Some((r.commitment.clone(), seed, r.beacon())),
        _ => None,
    };
    let mut draft = match undone {
        Some(name) => {
            let root = history::entry_dir(dir, name);
            let (rec, _) = history::read_entry(dir, name)?;
            let seed = crate::dice::parse_hex32(&store::read_text(&root.join("seed"))?)
                .map_err(|e| anyhow!("{}/seed: {e}", root.display()))?;
            let kept = rec
                .commitment
                .ok_or_else(|| anyhow!("history/{name} has no commitment to reopen"))?;
            let kept_beacon = phase::beacon_of(rec.beacon.as_deref(), rec.beacon_round);
            let c = phase::stage_next_with(dir, &new_state.game, new_state.phase, &seed, kept_beacon.as_ref())?;
            if c != kept {
                anyhow::bail!("history/{name}: its seed does not give its commitment {kept}");
            }
            let mut d = Draft::new(kind, &new_state.game, new_state.phase);
            d.undone = Some(name.to_string());
            d.next_commitment = Some(c);
            if let Some((commitment, seed, b)) = discarded {
                d.abandoned_phase = Some(old.phase);
                d.abandoned_commitment = Some(commitment);
                d.beacon = b.as_ref().map(|b| b.network.clone());
                d.beacon_round = b.map(|b| b.round);
                d.file("abandoned-seed", format!("{}\n", crate::dice::to_hex(&seed)));
            }
            d
        }
        None => {
            let config = dir.load_config()?;
            let b = super::beacon::round_for(&config, new_state.phase, super::clock::now()?)?;
            let c = phase::stage_next(dir, &new_state.game, new_state.phase, b.as_ref())?;
            let mut d = Draft::new(kind, &new_state.game, old.phase);
            d.next_commitment = Some(c);
            if let Some((commitment, seed, b)) = discarded {
                d.commitment = Some(commitment);
                d.beacon = b.as_ref().map(|b| b.network.clone());
                d.beacon_round = b.map(|b| b.round);
                d.file("seed", format!("{}\n", crate::dice::to_hex(&seed)));
                d.file("dice.toml", toml::to_string(&history::DiceLog::default())?);
                d.file("entropy.toml", toml::to_string(&EntropyFile::default())?);
            }
            d
        }
    };
    draft.note = note.to_string();
    draft.next_phase = Some(new_state.phase);
    draft.next_dice = phase::physical_announced(dir, new_state.phase)?.then(|| MANUAL.to_string());
    for (k, v) in files {
        draft.file(&k, v);
    }
    draft.file("state-before.toml", before);
    draft.file("state-after.toml", new_state.to_toml());
    let (info, _) = history::stage(dir, &draft)?;
    history::commit(dir, &info)?; // the commit point
    finish(dir, &info.name, &new_state.game)?;
    Ok(info)
}
