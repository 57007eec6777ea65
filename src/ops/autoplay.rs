//! `empereur autoplay`: play phases with generated random-but-legal
//! orders (rules::autoplay) and seeded dice, to try house tables or to
//! benchmark. A dry run: the game directory (or a fresh game of an
//! embedded scenario) is read, never written; the committed-dice path
//! that writes history is `empereur resolve`.
#![allow(clippy::disallowed_methods)] // adapter

use super::Done;
use crate::ids::PowerId;
use crate::rules::testing::SeededDice;
use crate::rules::{self, PhaseOrders, autoplay};
use crate::state::State;
use crate::store::{self, GameDir};
use anyhow::{Result, anyhow};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
#[command(
    after_help = "Examples:\n  empereur autoplay --scenario 1805 --phases 200 --seed 7\n  empereur autoplay --game games/demo --phases 10 --quiet"
)]
pub struct AutoplayArgs {
    /// A game directory to start from (read only).
    #[arg(long, short = 'g')]
    pub game: Option<PathBuf>,
    /// Start a fresh game of this scenario (all seven powers played) instead.
    #[arg(long, default_value = "1805")]
    pub scenario: String,
    /// How many phases to resolve (stops early when the game ends).
    #[arg(long, default_value_t = 10)]
    pub phases: u32,
    /// Seed of the generated orders and dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one line per phase instead of every outcome.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: &AutoplayArgs) -> Result<Done> {
    let (scenario, mut state) = match &args.game {
        Some(dir) => {
            let g = GameDir::new(dir);
            let cfg = g.load_config()?;
            (g.load_scenario(&cfg)?, g.load_state()?)
        }
        None => {
            let s = store::load_scenario(&args.scenario)?;
            let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
            let st = State::initial(&s, "autoplay", &players, BTreeSet::new());
            (s, st)
        }
    };
    for i in 0..args.phases {
        if state.over.is_some() {
            break;
        }
        let seed = args.seed.wrapping_mul(0x1000_0000).wrapping_add(u64::from(i));
        let mut orders: PhaseOrders = BTreeMap::new();
        for p in rules::roles(&scenario, &state).may {
            let lines = autoplay::generate(&scenario, &state, p, seed);
            if !lines.is_empty() {
                orders.insert(p, lines);
            }
        }
        let mut dice = SeededDice::new(seed);
        let r = rules::resolve(&scenario, &state, &orders, &mut dice).map_err(|e| anyhow!("{}: {e}", state.phase))?;
        rules::audit(&state, &r.state, &r.outcomes).map_err(|e| anyhow!("{}: invariant broken: {e}", state.phase))?;
        let n: usize = orders.values().map(Vec::len).sum();
        println!(
            "== {} ({n} generated orders, {} outcomes)",
            state.phase,
            r.outcomes.len()
        );
        if !args.quiet {
            for o in &r.outcomes {
                println!("  [{}] {}", o.rule, o.summary);
            }
        }
        state = r.state;
    }
    println!(
        "now: {}{}",
        state.phase,
        state
            .over
            .as_ref()
            .map(|w| format!(" (game over: {w})"))
            .unwrap_or_default()
    );
    for p in PowerId::ALL {
        let ps = state.power(p);
        println!(
            "  {:<8} gold {:>4}  debt {:>3}  vp {:>4} / {}",
            p.id(),
            ps.gold,
            ps.debt,
            ps.vp,
            scenario.power(p).vp_goal
        );
    }
    Ok(Done::Yes)
}
