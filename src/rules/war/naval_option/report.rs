//! What every naval battle of the option reports, and how its costs are
//! paid: one place for open sea combat, blockade battles and port raids.
//!
//! A battle's outcome is seen by the powers of both sides and by whoever
//! gives their orders; its why-lines are the battle log (chits revealed,
//! forces, morale, each round's die and table, losses, chase, capture),
//! its dice the log's dice, its VP the political points (12.2.6.1.6.3).

use super::combat::{Force, Log};
use crate::ids::PowerId;
use crate::rules::{Kind, Outcome};
use crate::state::{State, UnitKey};
use std::collections::{BTreeMap, BTreeSet};

/// Who sees a naval battle: the powers commanding `keys` and whoever
/// gives their orders.
pub fn seers(state: &State, keys: &[UnitKey]) -> Vec<PowerId> {
    seers_of(state, keys.iter().filter_map(|k| state.unit_power(k)))
}

/// `powers` and whoever gives their orders.
pub fn seers_of(state: &State, powers: impl IntoIterator<Item = PowerId>) -> Vec<PowerId> {
    let mut s: BTreeSet<PowerId> = powers.into_iter().collect();
    for p in s.clone() {
        if let Some(o) = state.ordered_by(p) {
            s.insert(o);
        }
    }
    s.into_iter().collect()
}

/// How a report names a side: its power, else "a minor power".
pub fn side_name(f: &Force) -> String {
    f.power
        .map_or_else(|| "a minor power".to_string(), |p| p.name().to_string())
}

/// A battle as one outcome.
pub struct Battle<'a> {
    pub rule: &'a str,
    pub summary: String,
    /// The power whose phase it is.
    pub power: PowerId,
    /// The orders that brought it on.
    pub text: &'a str,
    /// The port or sea zone it was fought in.
    pub at: &'a str,
    pub seen_by: Vec<PowerId>,
}

impl Battle<'_> {
    /// The outcome: the log as why-lines and dice, the VP changes.
    pub fn outcome(self, log: Log, vp: BTreeMap<PowerId, i64>) -> Outcome {
        let mut o = Outcome::new(self.rule, Kind::NavalBattle, self.summary)
            .power(self.power)
            .order(self.text)
            .at(self.at)
            .only(self.seen_by);
        for l in log.lines {
            o = o.why(l);
        }
        for (p, d) in log.dice {
            o = o.die(&p, d);
        }
        for (p, d) in vp {
            o = o.vp(p, d);
        }
        o
    }
}

/// Charge `gold` to `power`; what cannot be paid becomes deficit (4.221).
pub fn pay(state: &mut State, power: PowerId, gold: i64, (rule, what): (&str, &str), why: Vec<String>) -> Outcome {
    let ps = state.power_mut(power);
    let paid = gold.min(ps.gold.max(0));
    ps.gold -= paid;
    ps.debt += gold - paid;
    let mut o = Outcome::new(
        rule,
        Kind::Expenses,
        format!("{} pays {gold} Gold for {what}", power.name()),
    )
    .power(power)
    .gold(power, -paid)
    .only(vec![power]);
    for w in why {
        o = o.why(w);
    }
    if gold > paid {
        o = o.why(format!("4.221: {} Gold cannot be paid: deficit", gold - paid));
    }
    o
}
