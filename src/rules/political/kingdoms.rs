//! What every kingdom of 11.1–11.7 shares: who holds a component, the
//! political points (house: `vp_per_pp` VP each, `tables/political.toml`),
//! and declaring a kingdom (its marker and its controller's free state
//! flag: 11.1.1.2, 11.2.1.1, 11.3.1.1, 11.4.1, 11.5.1.1, 11.6.1.1).

use crate::ids::{Nation, PowerId};
use crate::rules::economy;
use crate::rules::{Kind, Outcome};
use crate::scenario::tables_political::KingdomDef;
use crate::scenario::{MinorKind, Scenario};
use crate::state::{Kingdom, State};
use std::collections::BTreeSet;

/// The major power that controls a component: the 4.21 controller of the
/// province (a garrison, or the home power), else the controller of the
/// minor power whose own forces still hold it (3.45, 3.46).
pub fn holder(scenario: &Scenario, state: &State, province: &str) -> Option<PowerId> {
    if let Some(p) = economy::controller(scenario, state, province) {
        return Some(p);
    }
    let ps = state.provinces.get(province)?;
    if ps.rebellion {
        return None;
    }
    match (&ps.controller, &ps.garrison) {
        (Some(Nation::Minor(m)), None) => state.minors.get(m)?.controller,
        (Some(Nation::Minor(m)), Some(g)) if g.nation == Nation::Minor(m.clone()) => state.minors.get(m)?.controller,
        _ => None,
    }
}

/// The components of `def` that `power` controls now.
pub fn held(scenario: &Scenario, state: &State, power: PowerId, def: &KingdomDef) -> BTreeSet<String> {
    def.components
        .iter()
        .filter(|c| holder(scenario, state, &c.id) == Some(power))
        .map(|c| c.id.clone())
        .collect()
}

/// Display name of a province.
pub fn pname(scenario: &Scenario, id: &str) -> String {
    scenario
        .map
        .province(id)
        .map_or_else(|| id.to_string(), |p| p.name.clone())
}

/// Names of provinces, joined.
pub fn names<'a>(scenario: &Scenario, ids: impl IntoIterator<Item = &'a String>) -> String {
    ids.into_iter()
        .map(|p| pname(scenario, p))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Political points as Victory Points (house: `vp_per_pp`).
pub fn pp_vp(scenario: &Scenario, pp: i64) -> i64 {
    pp * scenario.tables.political.vp_per_pp
}

/// Give `power` `pp` political points (negative: lose them), explained.
pub fn award(scenario: &Scenario, state: &mut State, power: PowerId, pp: i64, mut o: Outcome) -> Outcome {
    if pp == 0 {
        return o;
    }
    let vp = pp_vp(scenario, pp);
    state.power_mut(power).vp += vp;
    o = o.vp(power, vp).why(format!(
        "{} {pp:+} political point(s) = {vp:+} VP (tables/political.toml: {} VP a point)",
        power.name(),
        scenario.tables.political.vp_per_pp
    ));
    o
}

/// Declare `def` for `power` with `components`: the marker and the
/// flag, the political points for creating it, and the La Guerre Loyal
/// Minor Power of the kingdom (3.42) placed under the creator.
pub fn declare(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    def: &KingdomDef,
    components: BTreeSet<String>,
    text: &str,
) -> Outcome {
    let list = names(scenario, &components);
    state.political.kingdoms.insert(
        def.id.clone(),
        Kingdom {
            controller: power,
            components,
            created: state.turn(),
            gold: 0,
            ceded: false,
        },
    );
    for n in &def.nations {
        let loyal = scenario.minors.get(n).is_some_and(|m| m.kind == MinorKind::Loyal);
        if loyal && let Some(m) = state.minors.get_mut(n) {
            m.controller = Some(power);
            m.formed = true;
        }
    }
    let mut o = Outcome::new(
        def.rule.as_str(),
        Kind::KingdomCreated,
        format!("{} declares the {}: {list}", power.name(), def.name),
    )
    .power(power)
    .order(text)
    .why(format!(
        "{}: its marker and {}'s free state flag are placed",
        def.rule,
        power.name()
    ));
    for w in super::forces::bring_counters(scenario, state, def) {
        o = o.why(w);
    }
    award(scenario, state, power, def.pp_create, o)
}

/// Remove a kingdom from the map (its marker and flag), with why.
pub fn end(state: &mut State, def: &KingdomDef, rule: &str, why: String) -> Option<Outcome> {
    let k = state.political.kingdoms.remove(&def.id)?;
    Some(
        Outcome::new(rule, Kind::KingdomEnded, format!("The {} ceases to exist", def.name))
            .power(k.controller)
            .why(why)
            .why(format!(
                "its marker and {}'s free state flag are removed",
                k.controller.name()
            )),
    )
}

/// Divisions of `nations` still on the map (in any corps, or as garrisons).
pub fn forces_left(state: &State, nations: &[String]) -> u32 {
    let of = |n: &Nation| matches!(n, Nation::Minor(m) if nations.contains(m));
    let in_corps: usize = state
        .corps
        .iter()
        .filter(|c| c.location.is_some())
        .map(|c| c.divisions.iter().filter(|d| of(&d.nation)).count())
        .sum();
    let garrisons = state
        .provinces
        .values()
        .filter(|p| p.garrison.as_ref().is_some_and(|g| of(&g.nation)))
        .count();
    (in_corps + garrisons) as u32
}
