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
//! 4. write `state.toml`, clear `phase/orders/`, move the staged seed
//!    into `phase/seed` and `phase/commitment`, drop `next-seed`.
//!
//! Before 3, recovery removes the entry and the staged seed (the phase is
//! still open, and resolving again gives the same rolls: same seed, same
//! orders). After 3, recovery redoes step 4 from the entry.
#![allow(clippy::disallowed_methods)] // adapter

use super::Done;
use crate::dice::{Committed, Dice, Entropy, Manual};
use crate::ids::{PhaseId, PowerId};
use crate::rules::{self, EngineError, PhaseOrders};
use crate::store::history::{self, DiceLog, Draft, EntropyFile, OutcomesFile};
use crate::store::{self, GameDir, phase, submission};
use anyhow::{Context, Result, anyhow};
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

/// `empereur resolve` arguments.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    after_help = "Examples:\n  empereur resolve --game campaign\n  empereur resolve --game campaign --phase 1805-fall-france\n  empereur resolve --game campaign --manual-dice 7,3,10,1"
)]
pub struct ResolveArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// Resolve only if this is the open phase (a guard for cron).
    #[arg(long)]
    pub phase: Option<String>,
    /// Physical dice rolled by the moderator, in the order the engine asks
    /// (a d10 may be entered as 0 for 10); logged as manual.
    #[arg(long = "manual-dice")]
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

pub fn run(a: &ResolveArgs) -> Result<Done> {
    let dir = GameDir::new(&a.game);
    let opts = ResolveOptions {
        phase: a.phase.clone(),
        manual_dice: a.manual_dice.clone(),
        now: None,
        late: Vec::new(),
    };
    match resolve_game(&dir, &opts)? {
        Resolved::Done(s) => {
            super::workflow::start_clock_now(&dir)?;
            println!(
                "resolved {} ({} outcome(s), {} {} roll(s)) -> history/{}",
                s.resolved,
                s.outcomes,
                s.rolls,
                if s.manual { "manual" } else { "committed" },
                s.entry
            );
            match &s.over {
                Some(w) => println!("the game is over: {w}"),
                None => println!("opened {} with dice commitment {}", s.next, s.commitment),
            }
            Ok(Done::Yes)
        }
        Resolved::Refused(why) => {
            println!("not resolved: {why}");
            Ok(Done::No)
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
    let r = resolve_with_lock_held(dir, opts, engine)?;
    group.commit()?;
    Ok(r)
}

/// As [`resolve_game`] for a caller that already holds the game lock
/// (`run` holds it across fetch, ingest, resolve and send).
pub fn resolve_game_locked(dir: &GameDir, opts: &ResolveOptions) -> Result<Resolved> {
    resolve_with_lock_held(dir, opts, rules::resolve)
}

fn resolve_with_lock_held(dir: &GameDir, opts: &ResolveOptions, engine: Engine) -> Result<Resolved> {
    let rec = recover(dir)?;
    if let Some(name) = rec.finished {
        let when = now_or(opts);
        dir.journal_line(
            &when,
            &format!("resolve: finished the interrupted resolution history/{name}"),
        )?;
        return Ok(Resolved::Done(summary_of(dir, &name)?));
    }
    resolve_locked(dir, opts, engine)
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
        _ => {
            phase::discard_next(dir)?;
            out.lines
                .push("dropped the staged seed of an unfinished resolution".to_string());
        }
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
    let after = history::entry_dir(dir, name).join("state-after.toml");
    let bytes = fs::read(&after).with_context(|| format!("cannot read {}", after.display()))?;
    store::atomic_write(&dir.state(), &bytes)?;
    clear_orders(dir)?;
    phase::promote_next(dir, game)
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

fn resolve_locked(dir: &GameDir, opts: &ResolveOptions, engine: Engine) -> Result<Resolved> {
    let config = dir.load_config()?;
    let state_bytes = fs::read(dir.state()).with_context(|| format!("cannot read {}", dir.state().display()))?;
    let state = dir.load_state()?;
    if let Some(w) = &state.over {
        return Ok(Resolved::Refused(format!("the game is over ({w})")));
    }
    if let Some(p) = &opts.phase {
        let asked: PhaseId = p.parse().map_err(|e: String| anyhow!(e))?;
        if asked != state.phase {
            return Ok(Resolved::Refused(format!(
                "the open phase is {}, not {asked}",
                state.phase
            )));
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
    let c = crate::dice::commitment(&state.game, &state.phase.to_string(), &seed);
    if c != rec.commitment {
        anyhow::bail!(
            "{} does not match the published commitment {} (it gives {c})",
            phase::seed_path(dir).display(),
            rec.commitment
        );
    }

    let subs = submission::load_all(dir)?;
    // A submission stored for another phase must never be carried out in
    // this one (ingest checks the phase under the lock; this is the
    // last guard).
    if let Some((p, s)) = subs.iter().find(|(_, s)| s.phase != state.phase) {
        return Ok(Resolved::Refused(format!(
            "{} holds orders for phase {}, but the open phase is {}; move it aside (or submit again) and resolve",
            submission::path(dir, *p).display(),
            s.phase,
            state.phase
        )));
    }
    let mut orders = PhaseOrders::new();
    let mut entropy = Entropy::new();
    for (p, s) in &subs {
        orders.insert(*p, s.orders.clone());
        if let Some(e) = &s.entropy {
            entropy.insert(*p, e.clone());
        }
    }

    let manual = opts.manual_dice.is_some();
    let mut dice: Box<dyn Dice> = match &opts.manual_dice {
        Some(list) => Box::new(Manual::parse(list).map_err(|e| anyhow!("--manual-dice: {e}"))?),
        None => Box::new(Committed::new(&seed, &entropy)),
    };
    let mut res = match engine(&scenario, &state, &orders, dice.as_mut()) {
        Ok(r) => r,
        Err(EngineError::GameOver) => return Ok(Resolved::Refused("the game is over".into())),
        Err(EngineError::Dice(e)) if manual => anyhow::bail!("--manual-dice: {e}"),
        Err(e) => anyhow::bail!("resolving {}: {e}", state.phase),
    };
    if manual {
        dice.finish().map_err(|e| anyhow!("--manual-dice: {e}"))?;
    }
    // The report says who was late and what stood in for their orders.
    for (i, p) in opts.late.iter().enumerate() {
        res.outcomes.insert(
            i,
            rules::Outcome::new(
                "3.7",
                "no-orders",
                format!(
                    "{} sent no orders by the deadline; its standing orders and the documented defaults applied",
                    p.name()
                ),
            )
            .power(*p),
        );
    }
    let rolls = dice.log().to_vec();

    let next = res.state.phase;
    let after_text = res.state.to_toml();
    let next_commitment = phase::stage_next(dir, &state.game, next)?;

    let mut draft = Draft::new("resolve", &state.game, state.phase);
    draft.commitment = Some(rec.commitment.clone());
    draft.next_phase = Some(next);
    draft.next_commitment = Some(next_commitment.clone());
    if let Some(list) = &opts.manual_dice {
        draft.note = format!("resolved with manual dice entered by the moderator: {list}");
    }
    draft.file("state-before.toml", state_bytes);
    for (p, s) in &subs {
        draft.file(&format!("orders/{}.toml", p.id()), submission_bytes(dir, *p, s)?);
    }
    draft.file("seed", format!("{}\n", crate::dice::to_hex(&seed)));
    let ef = EntropyFile {
        entropy: entropy.clone(),
    };
    draft.file(
        "entropy.toml",
        toml::to_string(&ef).context("serialising entropy.toml")?,
    );
    let log = DiceLog { rolls: rolls.clone() };
    draft.file("dice.toml", toml::to_string(&log).context("serialising dice.toml")?);
    let of = OutcomesFile {
        outcomes: res.outcomes.clone(),
    };
    draft.file(
        "outcomes.toml",
        toml::to_string(&of).context("serialising outcomes.toml")?,
    );
    draft.file("state-after.toml", after_text);
    draft.file(
        "report.txt",
        history::render_report(&state.game, state.phase, &res.outcomes, &rolls),
    );

    let (info, _) = history::stage(dir, &draft)?;
    history::commit(dir, &info)?; // the commit point
    finish(dir, &info.name, &state.game)?;
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

/// Record a moderator action that replaces the state (a rollback, a
/// correction) as a history entry of `kind` (`undo`, `moderator`), with
/// `state-before.toml`, `state-after.toml` and `files`, reveal the
/// abandoned phase's seed, and reopen the new state's phase under a fresh
/// commitment. Same commit point and recovery
/// as a resolution. Call with the game lock held.
pub fn record_state_change(
    dir: &GameDir,
    kind: &str,
    note: &str,
    new_state: &crate::state::State,
    files: BTreeMap<String, Vec<u8>>,
) -> Result<history::EntryInfo> {
    recover(dir)?;
    let before = fs::read(dir.state()).with_context(|| format!("cannot read {}", dir.state().display()))?;
    let old = dir.load_state()?;
    // The open phase is abandoned: reveal its seed under its commitment
    // (with an empty dice log), so nobody need wonder whether the
    // moderator peeked at it before choosing to roll back.
    let discarded = match (phase::commitment(dir)?, phase::read_seed(dir)) {
        (Some(c), Ok(seed)) => Some((c, seed)),
        _ => None,
    };
    let c = phase::stage_next(dir, &new_state.game, new_state.phase)?;
    let mut draft = Draft::new(kind, &new_state.game, old.phase);
    draft.note = note.to_string();
    draft.next_phase = Some(new_state.phase);
    draft.next_commitment = Some(c);
    draft.files = files;
    if let Some((commitment, seed)) = discarded {
        draft.commitment = Some(commitment);
        draft.file("seed", crate::dice::to_hex(&seed));
        draft.file("dice.toml", toml::to_string(&history::DiceLog::default())?);
    }
    draft.file("state-before.toml", before);
    draft.file("state-after.toml", new_state.to_toml());
    let (info, _) = history::stage(dir, &draft)?;
    history::commit(dir, &info)?; // the commit point
    finish(dir, &info.name, &new_state.game)?;
    Ok(info)
}
