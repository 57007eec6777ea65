//! The kingdom as a minor free state (11.1.2, 11.2.2, 11.3.2, 11.4.2,
//! 11.5.2, 11.6.2, 11.7.2): the money of its components is doubled
//! (8.2.3) into its own treasury, which pays for its units; what is left
//! unspent at the end of the year is lost (8.5.5), except that a
//! Turkish-controlled Ottoman Empire pays it to Turkey as tribute
//! (11.6.2.2).
//!
//! House mapping (`tables/political.toml`, rules-notes §6.3): money is
//! Gold; the components' Economic Values are collected at the Winterphase
//! Tax Collection Step (4.21) into the kingdom's treasury instead of the
//! controller's (11.2.1: Illyria's money "not counted for Austrian money");
//! the treasury pays first for divisions of the kingdom's nations built by
//! its controller (6.0); EiA's December expenditure is the last Build
//! Phase of the year, so the treasury is emptied as the Winterphase opens.
//! La Guerre has no manpower (the force pool limits builds), so the
//! manpower halves of these clauses (11.3.2.2, 11.5.2.2) have nothing to
//! restrict. A province in two kingdoms (Hanover, Hesse, Magdeburg, Tyrol,
//! Bavaria) pays into the smaller one (Westphalia, Bavaria) first.

use super::kingdoms::holder;
use crate::ids::{Nation, PowerId};
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::state::{State, UnitKey};

/// The order in which kingdoms claim a shared province's money.
const PRIORITY: [&str; 7] = [
    "poland",
    "italy",
    "westphalia",
    "bavaria",
    "two_sicilies",
    "ottoman",
    "rhine",
];

/// The kingdom whose treasury takes `province`'s money, if any: one that
/// holds it as a component, its controller controlling it.
pub fn pays_into(scenario: &Scenario, state: &State, province: &str) -> Option<&'static str> {
    if state.political.kingdoms.is_empty() {
        return None;
    }
    PRIORITY.into_iter().find(|id| {
        state
            .political
            .kingdom(id)
            .is_some_and(|k| k.components.contains(province) && holder(scenario, state, province) == Some(k.controller))
    })
}

/// 11.x.2, 8.2.3: collect each kingdom's doubled money into its treasury
/// (at the Tax Collection Step, 4.21).
pub fn collect(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let mult = scenario.tables.political.free_state_multiplier;
    for id in PRIORITY {
        let Some(k) = state.political.kingdom(id).cloned() else {
            continue;
        };
        let Some(def) = scenario.tables.political.kingdom(id) else {
            continue;
        };
        let mut o = Outcome::new(def.rule.as_str(), Kind::KingdomTreasury, String::new())
            .power(k.controller)
            .only(vec![k.controller]);
        let mut total = 0;
        for c in &k.components {
            if pays_into(scenario, state, c) != Some(id) {
                continue;
            }
            let econ = scenario.map.province(c).map_or(0, |p| i64::from(p.econ));
            total += econ * mult;
            o = o.why(format!(
                "{}: {econ} x {mult}",
                scenario.map.province(c).map_or(c.as_str(), |p| p.name.as_str())
            ));
        }
        o.summary = format!("The {} collects {total} Gold into its treasury", def.name);
        o = o.why(format!(
            "8.2.3: a minor free state's money is doubled (tables/political.toml free_state_multiplier {mult}); it pays for the {} units {} builds",
            def.name,
            k.controller.name()
        ));
        if let Some(kk) = state.political.kingdoms.get_mut(id) {
            kk.gold += total;
        }
        out.push(o);
    }
}

/// 8.5.5, 11.6.2.2: at the end of the year (as the Winterphase opens),
/// unspent treasuries are lost, but a Turkish Ottoman Empire's goes to
/// Turkey as tribute.
pub fn year_end(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let ids: Vec<String> = state.political.kingdoms.keys().cloned().collect();
    for id in ids {
        let Some(k) = state.political.kingdoms.get_mut(&id) else {
            continue;
        };
        let left = std::mem::take(&mut k.gold);
        let controller = k.controller;
        if left <= 0 {
            continue;
        }
        let name = scenario
            .tables
            .political
            .kingdom(&id)
            .map_or(id.clone(), |d| d.name.clone());
        if id == "ottoman" && controller == PowerId::Ottoman {
            state.power_mut(PowerId::Ottoman).gold += left;
            out.push(
                Outcome::new(
                    "11.6.2.2",
                    Kind::KingdomTreasury,
                    format!("The Ottoman Empire pays {left} Gold of tribute to Turkey"),
                )
                .power(controller)
                .gold(controller, left)
                .why("8.5.7: unspent Ottoman Empire money is added to Turkey's instead of being lost (8.5.5)"),
            );
        } else {
            out.push(
                Outcome::new(
                    "8.5.5",
                    Kind::KingdomTreasury,
                    format!("The {name} loses {left} unspent Gold at the end of the year"),
                )
                .power(controller)
                .only(vec![controller]),
            );
        }
    }
}

/// The kingdom of `power` whose treasury pays for divisions of all of
/// `nations` (11.x.2) built into the corps `into` (`None`: a squadron),
/// and the Gold in it. A kingdom's own counter is paid for only while its
/// home is a component (11.3.2.3, 11.5.2.3 errata: "If Hanover is not
/// part of the Kingdom of Westphalia, Hanoverian army factors are not
/// available for use by the Kingdom"; `forces::kingdom_corps`).
pub fn paying(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    nations: &[&Nation],
    into: Option<&UnitKey>,
) -> Option<(String, i64)> {
    if nations.is_empty() {
        return None;
    }
    state
        .political
        .kingdoms
        .iter()
        .filter(|(_, k)| k.controller == power && k.gold > 0)
        .find(|(id, k)| {
            // 11.5.2.3 errata: a minor not in the kingdom lends it nothing
            scenario.tables.political.kingdom(id).is_some_and(|d| {
                nations
                    .iter()
                    .all(|n| matches!(n, Nation::Minor(m) if d.serves(m, &k.components)))
                    && into.is_none_or(|key| super::forces::kingdom_corps(scenario, d, &k.components, key))
            })
        })
        .map(|(id, k)| (id.clone(), k.gold))
}

/// Take `amount` Gold from kingdom `id`'s treasury.
pub fn spend(state: &mut State, id: &str, amount: i64) {
    if let Some(k) = state.political.kingdoms.get_mut(id) {
        k.gold -= amount.min(k.gold);
    }
}
