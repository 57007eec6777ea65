//! `empereur balance`: play N seeded campaigns of a scenario in process
//! and print, per power, the win share, the median and earliest winning
//! season, and the mean VP by source (docs/balance.md).

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

/// What `empereur balance` found: the report, as a table or (`--json`) JSON.
#[derive(Clone, Debug)]
pub struct Balanced {
    pub report: balance::Report,
}

impl std::fmt::Display for Balanced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.report.to_text())
    }
}

impl super::Summary for Balanced {}

impl super::Structured for Balanced {
    fn json(&self) -> Result<String> {
        Ok(format!("{}\n", serde_json::to_string_pretty(&self.report)?))
    }

    fn toml(&self) -> Result<String> {
        Ok(toml::to_string(&self.report)?)
    }
}

pub fn run(a: &BalanceArgs) -> Result<Balanced> {
    let s = crate::store::load_scenario(&a.scenario)?;
    Ok(Balanced {
        report: balance::run(&s, &a.scenario, a.policy, a.campaigns, a.seed),
    })
}
