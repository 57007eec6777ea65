//! What a kingdom does for its forces: the counters it brings into play
//! (the Lombardy and Venetian corps and the Venetia fleet, 11.2.2.1,
//! 11.2.2.2; the Hanover and Hesse corps, 11.3.2.1; the Hanover, Hesse,
//! Baden and Württemberg corps, 11.5.2.1), the movement allowance of the
//! corps of a French-controlled Kingdom of Italy, Kingdom of Westphalia,
//! Kingdom of Bavaria or Confederation of the Rhine (11.2.2.1, 11.3.2.1,
//! 11.4.2, 11.5.2.1), and the improved morale of the corps of a
//! Turkish-controlled Ottoman Empire (11.6.2.1).
//!
//! House counters (`tables/political.toml` `[[kingdom.counter]]`, with
//! their provenance): the La Guerre map has none of these. A corps
//! counter enters play empty and off the map when the kingdom is created
//! and enters the map in its home province when its controller first
//! builds into it (as the Bavarian corps, 3.46). A fleet is placed in its
//! home port once; it is commanded only by its kingdom's controller
//! ([`crate::state::State::squadron_power`], 11.2.2.2), who may build it
//! again there once it is sunk ([`fleet_to_rebuild`], 11.2.2).
//!
//! House mapping (`tables/political.toml`): La Guerre gives every corps
//! the same allowance, so the EiA "4" (against 3) is
//! `french_corps_allowance_bonus` more; nothing is given "simply for
//! being French controlled" (7.3.1.1) because La Guerre gives nothing for
//! it. A kingdom's counter is that kingdom's corps while its home is one
//! of the kingdom's components; a minor's own corps (the Bavarian, the
//! Saxon) is the corps of every kingdom paying for its nation. Morale is
//! a battle modifier (rules-notes §6.3): a side whose divisions are
//! mostly Ottoman Empire divisions adds `ottoman_morale_modifier` to its
//! combat rolls.

use crate::ids::{Nation, PowerId};
use crate::rules::Why;
use crate::scenario::Scenario;
use crate::scenario::tables_political::{CounterDef, CounterKind, KingdomDef};
use crate::state::political::KingdomFleet;
use crate::state::{Corps, Division, Location, Squadron, State, UnitKey};

/// 11.2.2.1, 11.2.2.2, 11.3.2.1, 11.5.2.1: the counters `def` brings
/// into play as it is created or as a component joins it (11.5.1.4: a
/// counter whose home is not yet in the kingdom waits for it), each once:
/// a corps counter not yet in play (empty and off the map), a fleet never
/// placed before (in its home port; one placed before comes back with
/// what is left of it, 11.2.2.2 "its current number of ships"). Returns
/// the why lines.
pub fn bring_counters(scenario: &Scenario, state: &mut State, def: &KingdomDef) -> Vec<Why> {
    let mut why = Vec::new();
    let Some(parts) = state.political.kingdom(&def.id).map(|k| k.components.clone()) else {
        return why;
    };
    for c in def.counters.iter().filter(|c| parts.contains(&c.home)) {
        let nation = Nation::Minor(c.nation.clone());
        let home = super::kingdoms::pname(scenario, &c.home);
        match c.kind {
            CounterKind::Corps => {
                if state.corps(&nation, c.number).is_some() {
                    continue;
                }
                state.corps.push(Corps {
                    nation: nation.clone(),
                    number: c.number,
                    location: None,
                    divisions: Vec::new(),
                    arrives: None,
                    held_by: None,
                });
                let unit = UnitKey::corps(nation, c.number).name(scenario);
                why.push(Why::rule(
                    c.rule.as_str(),
                    format!(
                        "the {unit} enters play off the map: it enters {home} when first built into (tables/political.toml)"
                    ),
                ));
            }
            CounterKind::Squadron => {
                if state.political.fleet_of(&nation, c.number).is_some() || state.squadron(&nation, c.number).is_some()
                {
                    continue;
                }
                state.political.fleets.push(KingdomFleet {
                    kingdom: def.id.clone(),
                    nation: nation.clone(),
                    number: c.number,
                });
                state.squadrons.push(Squadron {
                    nation: nation.clone(),
                    number: c.number,
                    location: Location::Port(c.home.clone()),
                    blockading: None,
                    ships: None,
                    held_by: None,
                });
                let unit = UnitKey::squadron(nation, c.number).name(scenario);
                why.push(Why::rule(
                    c.rule.as_str(),
                    format!(
                        "the {unit} is placed in {home}, commanded by the kingdom's controller only (tables/political.toml)"
                    ),
                ));
            }
        }
    }
    why
}

/// Where a kingdom's corps counter not yet on the map enters it when
/// `power` first builds into it, and the counter row's rule: its home
/// province, if `power` holds it and commands a kingdom the counter
/// belongs to with that province among its components (11.2.2.1,
/// 11.3.2.1, 11.5.2.1; as 3.46). The caller has checked that the corps
/// has never been on the map (`rules::builds`).
pub fn entry_province(scenario: &Scenario, state: &State, power: PowerId, c: &Corps) -> Option<(String, String)> {
    let Nation::Minor(m) = &c.nation else { return None };
    if !super::enabled(state) {
        return None;
    }
    scenario.tables.political.kingdoms.iter().find_map(|def| {
        let k = state.political.kingdom(&def.id).filter(|k| k.controller == power)?;
        def.counter(CounterKind::Corps, m, c.number)
            .filter(|r| {
                k.components.contains(&r.home) && super::kingdoms::holder(scenario, state, &r.home) == Some(power)
            })
            .map(|r| (r.home.clone(), r.rule.clone()))
    })
}

/// 11.2.2, 11.2.2.2: the fleet counter of a kingdom `power` controls that
/// may be built again in `port` now: a `[[kingdom.counter]]` squadron row
/// of `nation` whose home is `port`, placed once and since sunk (not in
/// play), of a kingdom that exists under `power`.
pub fn fleet_to_rebuild<'s>(
    scenario: &'s Scenario,
    state: &State,
    power: PowerId,
    nation: &str,
    port: &str,
) -> Option<&'s CounterDef> {
    if !super::enabled(state) {
        return None;
    }
    let n = Nation::Minor(nation.to_string());
    scenario.tables.political.kingdoms.iter().find_map(|def| {
        state.political.kingdom(&def.id).filter(|k| k.controller == power)?;
        def.counters.iter().find(|r| {
            r.kind == CounterKind::Squadron
                && r.nation == nation
                && r.home == port
                && state.political.fleet_of(&n, r.number).is_some()
                && state.squadron(&n, r.number).is_none()
        })
    })
}

/// The kingdoms whose corps move faster under France, and their rules.
const FAST: [(&str, &str); 4] = [
    ("italy", "11.2.2.1"),
    ("westphalia", "11.3.2.1"),
    ("bavaria", "11.4.2"),
    ("rhine", "11.5.2.1"),
];

/// The French kingdom (its rule) whose corps `key` is: a kingdom's own
/// counter while its home is a component of a French kingdom with that
/// counter row (the Hesse corps is the Confederation's only while Hesse
/// is in it, 11.3.2.1's note); any other corps of a minor, while a French
/// kingdom pays for that minor (the Bavarian, the Saxon corps; not while
/// the minor is outside the Confederation, 11.5.2.3 errata).
fn french_kingdom_of(scenario: &Scenario, state: &State, key: &UnitKey) -> Option<&'static str> {
    let Nation::Minor(m) = &key.nation else { return None };
    let t = &scenario.tables.political;
    FAST.into_iter()
        .find(|(id, _)| {
            let (Some(k), Some(def)) = (state.political.kingdom(id), t.kingdom(id)) else {
                return false;
            };
            k.controller == PowerId::France
                && def.serves(m, &k.components)
                && kingdom_corps(scenario, def, &k.components, key)
        })
        .map(|(_, r)| r)
}

/// Whether corps `key`, of a nation `def` pays for, is `def`'s while it
/// has `components`: a kingdom's own counter only while its home is one
/// of them and `def` has its row (the Hanover corps is not Westphalia's
/// without Hanover, 11.3.2.3 errata; the Baden corps never is); any other
/// corps, always.
pub fn kingdom_corps(
    scenario: &Scenario,
    def: &KingdomDef,
    components: &std::collections::BTreeSet<String>,
    key: &UnitKey,
) -> bool {
    let Nation::Minor(m) = &key.nation else { return true };
    if scenario
        .tables
        .political
        .counter(CounterKind::Corps, m, key.number)
        .is_none()
    {
        return true;
    }
    def.counter(CounterKind::Corps, m, key.number)
        .is_some_and(|r| components.contains(&r.home))
}

/// Extra movement allowance of a stack of corps: every corps of the stack
/// must be a French kingdom's (a stack moves at its slowest).
pub fn allowance_bonus(scenario: &Scenario, state: &State, corps: &[UnitKey]) -> Option<(u32, &'static str)> {
    if corps.is_empty() || !super::enabled(state) {
        return None;
    }
    let rules: Vec<&'static str> = corps
        .iter()
        .map(|k| french_kingdom_of(scenario, state, k))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PowerId::{Austria, France};

    /// The kingdom's counters are shown as other units are (2.5): every
    /// power sees the Italian corps on the map and the Venetia fleet, only
    /// France, who commands them, sees the corps' divisions.
    #[test]
    fn views_show_the_kingdom_counters_as_other_units() {
        let s = Scenario::embedded("1805").unwrap();
        let players = crate::ids::PowerId::ALL.into_iter().collect();
        let mut state = State::initial(&s, "t", &players, [super::super::ID.to_string()].into());
        let def = s.tables.political.kingdom("italy").unwrap().clone();
        let parts = def.components.iter().map(|c| c.id.clone()).collect();
        state.political.kingdoms.insert(
            def.id.clone(),
            crate::state::Kingdom {
                controller: France,
                components: parts,
                created: state.turn(),
                gold: 0,
                ceded: false,
            },
        );
        state.minors.get_mut("italy").unwrap().controller = Some(France);
        assert_eq!(bring_counters(&s, &mut state, &def).len(), 3);
        // counters enter play once
        assert!(bring_counters(&s, &mut state, &def).is_empty());
        let italian = Nation::Minor("italy".into());
        let c = state.corps_mut(&italian, 1).unwrap();
        c.location = Some("lombardy".into());
        c.divisions.push(Division {
            arm: crate::scenario::Arm::Infantry,
            nation: italian.clone(),
        });
        let theirs = state.view_for(Austria);
        let c = theirs.corps(&italian, 1).unwrap();
        assert_eq!(c.location.as_deref(), Some("lombardy"));
        assert!(c.divisions.is_empty());
        assert_eq!(
            theirs.squadron(&italian, 1).map(|q| &q.location),
            Some(&Location::Port("venetia".into()))
        );
        assert_eq!(state.view_for(France).corps(&italian, 1).unwrap().divisions.len(), 1);
        assert_eq!(
            theirs.squadron_power(theirs.squadron(&italian, 1).unwrap()),
            Some(France)
        );
    }
}
