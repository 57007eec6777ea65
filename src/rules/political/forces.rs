//! What a kingdom does for its corps: the movement allowance of the
//! corps of a French-controlled Kingdom of Italy, Kingdom of Westphalia,
//! Kingdom of Bavaria or Confederation of the Rhine (11.2.2.1, 11.3.2.1,
//! 11.4.2, 11.5.2.1), and the improved morale of the corps of a
//! Turkish-controlled Ottoman Empire (11.6.2.1).
//!
//! House mapping (`tables/political.toml`): La Guerre gives every corps
//! the same allowance, so the EiA "4" (against 3) is
//! `french_corps_allowance_bonus` more; nothing is given "simply for
//! being French controlled" (7.3.1.1) because La Guerre gives nothing for
//! it. Morale is a battle modifier (rules-notes §6.3): a side whose
//! divisions are mostly Ottoman Empire divisions adds
//! `ottoman_morale_modifier` to its combat rolls.

use crate::ids::{Nation, PowerId};
use crate::scenario::Scenario;
use crate::state::{Division, State, UnitKey};

/// The kingdoms whose corps move faster under France, and their rules.
const FAST: [(&str, &str); 4] = [
    ("italy", "11.2.2.1"),
    ("westphalia", "11.3.2.1"),
    ("bavaria", "11.4.2"),
    ("rhine", "11.5.2.1"),
];

/// The kingdom (and rule) whose corps `nation` is, if French-controlled.
fn french_kingdom_of(scenario: &Scenario, state: &State, nation: &Nation) -> Option<&'static str> {
    let Nation::Minor(m) = nation else { return None };
    FAST.into_iter()
        .find(|(id, _)| {
            state
                .political
                .kingdom(id)
                .is_some_and(|k| k.controller == PowerId::France)
                && scenario
                    .tables
                    .political
                    .kingdom(id)
                    .is_some_and(|d| d.nations.contains(m))
        })
        .map(|(_, r)| r)
}

/// Extra movement allowance of a stack of corps of `nations`: every corps
/// of the stack must be a French kingdom's (a stack moves at its slowest).
pub fn allowance_bonus(scenario: &Scenario, state: &State, nations: &[&Nation]) -> Option<(u32, &'static str)> {
    if nations.is_empty() || !super::enabled(state) {
        return None;
    }
    let rules: Vec<&'static str> = nations
        .iter()
        .map(|n| french_kingdom_of(scenario, state, n))
        .collect::<Option<Vec<_>>>()?;
    Some((scenario.tables.political.french_corps_allowance_bonus, rules[0]))
}

/// 11.6.2.1: the combat modifier of a side with these divisions.
pub fn morale_modifier(scenario: &Scenario, state: &State, divisions: &[&Division]) -> Option<i32> {
    if !super::enabled(state) || divisions.is_empty() {
        return None;
    }
    let k = state.political.kingdom("ottoman")?;
    if k.controller != PowerId::Ottoman {
        return None;
    }
    let def = scenario.tables.political.kingdom("ottoman")?;
    let ottoman = divisions
        .iter()
        .filter(|d| matches!(&d.nation, Nation::Minor(m) if def.nations.contains(m)))
        .count();
    (ottoman * 2 > divisions.len()).then_some(scenario.tables.political.ottoman_morale_modifier)
}

/// A side's round modifier and reasons with 11.6.2.1 added.
pub fn with_morale(
    scenario: &Scenario,
    state: &State,
    corps: &[UnitKey],
    modifier: i32,
    mut reasons: Vec<String>,
) -> (i32, Vec<String>) {
    let divisions: Vec<&Division> = corps
        .iter()
        .filter_map(|k| state.corps(&k.nation, k.number))
        .flat_map(|c| c.divisions.iter())
        .collect();
    match morale_modifier(scenario, state, &divisions) {
        Some(m) if m != 0 => {
            reasons.push(format!(
                "{m:+} improved Ottoman morale (11.6.2.1, tables/political.toml)"
            ));
            (modifier + m, reasons)
        }
        _ => (modifier, reasons),
    }
}
