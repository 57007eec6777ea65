//! `empereur autoplay`: give every power that has not ordered generated
//! random-but-legal orders, and resolve, N phases at a time. For trying
//! house tables and for the benchmarks. The generated orders are handed
//! to the resolution as submissions by `autoplay` without being stored in
//! `phase/orders/` (`resolve::Given`); the history keeps them as it keeps
//! stored ones, so it shows who wrote them, and a batch cut before a
//! phase's commit point generates that phase's orders again.
#![allow(clippy::disallowed_methods)] // adapter

use super::progress::{Progress, Silent};
use super::resolve::{Given, ResolveOptions, Resolved, resolve_game_locked_given};
use crate::ids::PowerId;
use crate::rules;
use crate::store::{GameDir, checkpoint, submission};
use anyhow::Result;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct AutoplayArgs {
    /// The game directory.
    pub game: PathBuf,
    /// How many phases to resolve.
    pub phases: u32,
    /// Seed of the order generator (the dice stay committed).
    pub seed: u64,
}

/// What an autoplay run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AutoplaySummary {
    pub resolved: u32,
    pub generated_orders: usize,
    pub over: Option<String>,
}

impl std::fmt::Display for AutoplaySummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "resolved {} phase(s) with {} generated order(s)",
            self.resolved, self.generated_orders
        )?;
        match &self.over {
            Some(w) => writeln!(f, "the game is over: {w}"),
            None => Ok(()),
        }
    }
}

impl super::Summary for AutoplaySummary {}

pub fn run(a: &AutoplayArgs, progress: &mut dyn Progress) -> Result<AutoplaySummary> {
    let dir = GameDir::new(&a.game);
    let s = autoplay_shown(&dir, a.phases, a.seed, None, progress)?;
    super::workflow::start_clock_now(&dir)?;
    Ok(s)
}

/// Generate orders for the powers that have none and resolve, `phases`
/// times or until the game ends. `now` stamps the submissions.
///
/// The whole batch holds the game lock and runs behind a checkpoint
/// (`store::checkpoint`): each resolution still has its commit point, in
/// order, but the fsyncs wait for a few passes over the whole batch, and
/// a power loss in the middle puts the game back where the batch began.
pub fn autoplay(dir: &GameDir, phases: u32, seed: u64, now: Option<&str>) -> Result<AutoplaySummary> {
    autoplay_shown(dir, phases, seed, now, &mut Silent)
}

/// As [`autoplay`], telling `progress` of each phase.
pub fn autoplay_shown(
    dir: &GameDir,
    phases: u32,
    seed: u64,
    now: Option<&str>,
    progress: &mut dyn Progress,
) -> Result<AutoplaySummary> {
    let _lock = dir.lock()?;
    let group = crate::store::durable::group();
    let cp = checkpoint::begin(dir)?;
    let s = autoplay_grouped(dir, phases, seed, now, progress)?;
    cp.commit()?;
    group.commit()?;
    Ok(s)
}

fn autoplay_grouped(
    dir: &GameDir,
    phases: u32,
    seed: u64,
    now: Option<&str>,
    progress: &mut dyn Progress,
) -> Result<AutoplaySummary> {
    let config = dir.load_config()?;
    let scenario = dir.load_scenario(&config)?;
    let mut summary = AutoplaySummary::default();
    progress.start(u64::from(phases), "autoplay");
    for round in 0..phases {
        progress.step();
        let state = dir.load_state()?;
        if let Some(w) = &state.over {
            summary.over = Some(w.clone());
            break;
        }
        let roles = rules::roles(&scenario, &state);
        let have = submission::load_all(dir)?;
        let stamp = match now {
            Some(t) => t.to_string(),
            None => super::clock::stamp(super::clock::now()?),
        };
        let mut powers: Vec<PowerId> = roles.must.iter().chain(roles.may.iter()).copied().collect();
        powers.sort();
        powers.dedup();
        // The generated submissions go to the resolution, not to files:
        // the history keeps their bytes, and each file written and
        // removed a phase cost a new inode on disk.
        let mut given = Given::new();
        for p in powers.into_iter().filter(|p| !have.contains_key(p)) {
            let phase_seed = seed ^ (u64::from(round) << 20) ^ (p as u64);
            let orders = generate(&scenario, &state, p, phase_seed);
            summary.generated_orders += orders.len();
            let sub = submission::Submission {
                power: p,
                phase: state.phase,
                by: "autoplay".to_string(),
                received: stamp.clone(),
                entropy: None,
                passed: false,
                orders,
            };
            given.insert(p, sub);
        }
        let opts = ResolveOptions {
            phase: Some(state.phase.to_string()),
            manual_dice: None,
            now: now.map(str::to_string),
            late: Vec::new(),
            beacon: None,
        };
        match resolve_game_locked_given(dir, &opts, given)? {
            Resolved::Done(s) => {
                summary.resolved += 1;
                if let Some(w) = s.over {
                    summary.over = Some(w);
                    break;
                }
            }
            Resolved::Refused(why) => anyhow::bail!("autoplay stopped: {why}"),
        }
    }
    progress.finish();
    Ok(summary)
}

pub use crate::autoplay::generate;
