//! `empereur balance`: play N seeded campaigns of a scenario in process
//! and print, per power, the win share, the median and earliest winning
//! season, and the mean VP by source (docs/balance.md).

use crate::autoplay::balance::{self, Policy};
use anyhow::Result;

#[derive(Debug, Clone)]
pub struct BalanceArgs {
    /// An embedded scenario name or a scenario directory.
    pub scenario: String,
    /// How many campaigns to play (seeds --seed .. --seed + N).
    pub campaigns: u32,
    /// passive: nobody orders (peaceful accrual); active: every power
    /// orders what autoplay generates; mixed: each power one or the other.
    pub policy: Policy,
    /// The first campaign's seed.
    pub seed: u64,
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
