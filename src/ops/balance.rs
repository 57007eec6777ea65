//! `empereur balance`: play N seeded campaigns of a scenario in process
//! and print, per power, the win share, the median and earliest winning
//! season, and the mean VP by source (docs/balance.md).

use super::Done;
use crate::autoplay::balance::{self, Policy};
use anyhow::Result;

#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(
    feature = "cli",
    command(
        after_help = "Examples:\n  empereur balance --scenario 1805 --campaigns 200 --policy passive\n  empereur balance --scenario 1805 --campaigns 200 --policy active --json"
    )
)]
pub struct BalanceArgs {
    /// An embedded scenario name or a scenario directory.
    #[cfg_attr(feature = "cli", arg(long, default_value = "1805"))]
    pub scenario: String,
    /// How many campaigns to play (seeds --seed .. --seed + N).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 50))]
    pub campaigns: u32,
    /// passive: nobody orders (peaceful accrual); active: every power
    /// orders what autoplay generates; mixed: each power one or the other.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = Policy::Active))]
    pub policy: Policy,
    /// The first campaign's seed.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Print the report as JSON.
    #[cfg_attr(feature = "cli", arg(long))]
    pub json: bool,
}

pub fn run(a: &BalanceArgs) -> Result<Done> {
    let s = crate::store::load_scenario(&a.scenario)?;
    let r = balance::run(&s, &a.scenario, a.policy, a.campaigns, a.seed);
    if a.json {
        crate::outln!("{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        crate::out!("{}", r.to_text())?;
    }
    Ok(Done::Yes)
}
