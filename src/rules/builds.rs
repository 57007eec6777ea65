//! 6.0 The Mutual Build Phase and 2.71 Build Costs Abroad.
//!
//! - Divisions are built into a corps on the map (2.22: three boxes, four
//!   for French corps 1–4) from the force pool of their nation: the
//!   builder's own, or a minor power it has conquered or controls (3.44).
//! - Squadrons are built in a port the builder controls (4.21).
//! - 2.71: the list cost of everything built in one province is raised by
//!   the LOC length from the nearest home province (exclusive) to that
//!   province (inclusive), provinces with `double_loc` counting double,
//!   by `percent_per_step` % a step, rounded as `build_costs.toml` says.
//!   Several orders in one province are charged the increase of the
//!   province total, so the total charged is the 2.71 cost of the total.
//! - 4.221: nothing is built while a deficit is unpaid.
//! - 3.3 / 2.5: reinforcements and commanders with an arrival date appear
//!   in the Build Phase of that turn (Wellington: Spring 1807).

use super::economy::{controller, rejected, repay_debt};
use super::outcome::Outcome;
use crate::ids::{Nation, PowerId};
use crate::orders::ast::{BuildItem, Order, OrderLine};
use crate::scenario::Scenario;
use crate::state::{Location, Squadron, State, UnitKey};
use std::collections::BTreeMap;

/// Whether `power` may build units of `nation` (3.44).
fn may_build_nation(state: &State, power: PowerId, nation: &Nation) -> bool {
    match nation {
        Nation::Major(p) => *p == power,
        Nation::Minor(m) => state.minors.get(m).is_some_and(|s| s.controller == Some(power)),
    }
}

/// Resolve every build order of the phase.
pub fn build_phase(scenario: &Scenario, state: &mut State, orders: &super::PhaseOrders, out: &mut Vec<Outcome>) {
    arrivals(scenario, state, out);
    for (p, lines) in orders {
        // Per province: list cost built so far and Gold charged so far.
        let mut spent: BTreeMap<String, (u32, u32)> = BTreeMap::new();
        for line in lines {
            // 4.221: nothing is built while a deficit is unpaid.
            if matches!(line.order, Order::Build { .. } | Order::BuildSquadron { .. }) && !repay_debt(state, *p, out) {
                out.push(rejected(
                    "4.221",
                    *p,
                    &line.text,
                    "a deficit must be repaid before anything is built",
                ));
                continue;
            }
            match &line.order {
                Order::Build { corps, items } => {
                    build_divisions(scenario, state, *p, corps, items, line, &mut spent, out)
                }
                Order::BuildSquadron { port, count } => {
                    build_squadrons(scenario, state, *p, port, *count, line, &mut spent, out)
                }
                _ => out.push(rejected(
                    "6.0",
                    *p,
                    &line.text,
                    "only builds are ordered in the Build Phase",
                )),
            }
        }
    }
}

/// Charge the 2.71 increase for `list` more Gold of builds in `province`;
/// returns the Gold charged or a reason.
fn charge(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    province: &str,
    list: u32,
    spent: &mut BTreeMap<String, (u32, u32)>,
) -> Result<(u32, String), String> {
    let loc = scenario.loc_length(p, province).ok_or_else(|| {
        format!(
            "no line of communication from {}'s home provinces to {province}",
            p.name()
        )
    })?;
    let (old_list, old_cost) = spent.get(province).copied().unwrap_or((0, 0));
    let new_cost = scenario.tables.build_costs.cost(old_list + list, loc);
    let inc = new_cost - old_cost;
    if i64::from(inc) > state.power(p).gold {
        return Err(format!("costs {inc} Gold, treasury has {}", state.power(p).gold));
    }
    spent.insert(province.to_string(), (old_list + list, new_cost));
    state.power_mut(p).gold -= i64::from(inc);
    Ok((
        inc,
        format!(
            "2.71: list ${} in {province} at LOC {loc} -> ${new_cost} ({}% a step, {})",
            old_list + list,
            scenario.tables.build_costs.percent_per_step,
            scenario.tables.build_costs.rounding
        ),
    ))
}

#[allow(clippy::too_many_arguments)]
fn build_divisions(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    key: &UnitKey,
    items: &[BuildItem],
    line: &OrderLine,
    spent: &mut BTreeMap<String, (u32, u32)>,
    out: &mut Vec<Outcome>,
) {
    let text = &line.text;
    let Some(c) = state.corps(&key.nation, key.number) else {
        out.push(rejected("6.0", p, text, &format!("no {key}")));
        return;
    };
    if state.commanding_power(&c.nation) != Some(p) {
        out.push(rejected("6.0", p, text, &format!("{key} is not {}'s", p.name())));
        return;
    }
    let Some(at) = c.location.clone() else {
        out.push(rejected("6.0", p, text, &format!("{key} is not on the map")));
        return;
    };
    let count: u32 = items.iter().map(|i| i.count).sum();
    if c.divisions.len() + count as usize > c.capacity() {
        out.push(rejected(
            "2.22",
            p,
            text,
            &format!("{key} has {} of {} boxes filled", c.divisions.len(), c.capacity()),
        ));
        return;
    }
    let mut list = 0;
    for it in items {
        if !may_build_nation(state, p, &it.nation) {
            out.push(rejected(
                "3.44",
                p,
                text,
                &format!("{} may not build {} units", p.name(), it.nation),
            ));
            return;
        }
        if let Nation::Minor(_) = &it.nation
            && c.nation != it.nation
            && matches!(c.nation, Nation::Minor(_))
        {
            out.push(rejected(
                "3.43",
                p,
                text,
                "a minor power corps holds only its own divisions",
            ));
            return;
        }
        let pool = match &it.nation {
            Nation::Major(q) => state.power(*q).pool.of(it.arm),
            Nation::Minor(m) => state.minors.get(m).map_or(0, |s| s.pool.of(it.arm)),
        };
        if pool < it.count {
            out.push(rejected(
                "6.0",
                p,
                text,
                &format!(
                    "only {pool} {} {} division(s) in the force pool",
                    it.nation,
                    it.arm.short()
                ),
            ));
            return;
        }
        let Some(costs) = scenario.costs(&it.nation) else {
            out.push(rejected("6.0", p, text, &format!("no costs for {}", it.nation)));
            return;
        };
        let unit = match it.arm {
            crate::scenario::Arm::Infantry => costs.infantry,
            crate::scenario::Arm::Cavalry => costs.cavalry,
            crate::scenario::Arm::Artillery => costs.artillery,
        };
        list += unit * it.count;
    }
    let (paid, why) = match charge(scenario, state, p, &at, list, spent) {
        Ok(v) => v,
        Err(reason) => {
            out.push(rejected("6.0", p, text, &reason));
            return;
        }
    };
    for it in items {
        match &it.nation {
            Nation::Major(q) => *state.power_mut(*q).pool.of_mut(it.arm) -= it.count,
            Nation::Minor(m) => {
                if let Some(s) = state.minors.get_mut(m) {
                    *s.pool.of_mut(it.arm) -= it.count;
                }
            }
        }
    }
    if let Some(c) = state.corps_mut(&key.nation, key.number) {
        for it in items {
            for _ in 0..it.count {
                c.divisions.push(crate::state::Division {
                    arm: it.arm,
                    nation: it.nation.clone(),
                });
            }
        }
    }
    out.push(
        Outcome::new(
            "6.0",
            "build",
            format!("{} builds {count} division(s) into {key} for {paid} Gold", p.name()),
        )
        .power(p)
        .order(text)
        .gold(p, -i64::from(paid))
        .why(why)
        .only(vec![p]),
    );
}

#[allow(clippy::too_many_arguments)]
fn build_squadrons(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    port: &str,
    count: u32,
    line: &OrderLine,
    spent: &mut BTreeMap<String, (u32, u32)>,
    out: &mut Vec<Outcome>,
) {
    let text = &line.text;
    if !scenario.map.province(port).is_some_and(|x| x.port) || controller(scenario, state, port) != Some(p) {
        out.push(rejected(
            "6.0",
            p,
            text,
            &format!("{port} is not a port {} controls", p.name()),
        ));
        return;
    }
    if state.power(p).pool.squadrons < count || count == 0 {
        out.push(rejected(
            "6.0",
            p,
            text,
            &format!("only {} squadron(s) in the force pool", state.power(p).pool.squadrons),
        ));
        return;
    }
    let list = scenario.power(p).costs.squadron * count;
    let (paid, why) = match charge(scenario, state, p, port, list, spent) {
        Ok(v) => v,
        Err(reason) => {
            out.push(rejected("6.0", p, text, &reason));
            return;
        }
    };
    state.power_mut(p).pool.squadrons -= count;
    let nation = Nation::Major(p);
    for _ in 0..count {
        let number = state
            .squadrons
            .iter()
            .filter(|s| s.nation == nation)
            .map(|s| s.number)
            .max()
            .unwrap_or(0)
            + 1;
        state.squadrons.push(Squadron {
            nation: nation.clone(),
            number,
            location: Location::Port(port.to_string()),
            blockading: None,
        });
    }
    out.push(
        Outcome::new(
            "6.0",
            "build-squadron",
            format!("{} builds {count} squadron(s) in {port} for {paid} Gold", p.name()),
        )
        .power(p)
        .order(text)
        .gold(p, -i64::from(paid))
        .why(why)
        .only(vec![p]),
    );
}

/// 3.3, 2.5: corps and commanders whose date has come appear now, at
/// their mat location or the capital.
pub fn arrivals(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let now = state.turn();
    for c in state.corps.iter_mut() {
        if let Some(t) = c.arrives
            && t <= now
            && c.location.is_none()
        {
            let at = match &c.nation {
                Nation::Major(p) => scenario
                    .power(*p)
                    .corps
                    .iter()
                    .find(|s| s.number == c.number)
                    .and_then(|s| s.at.clone())
                    .or_else(|| Some(scenario.power(*p).capital.clone())),
                Nation::Minor(m) => scenario
                    .minors
                    .get(m)
                    .and_then(|s| s.corps.iter().find(|s| s.number == c.number))
                    .and_then(|s| s.at.clone()),
            };
            if let Some(at) = at {
                c.location = Some(at.clone());
                c.arrives = None;
                out.push(Outcome::new(
                    "3.3",
                    "reinforcement",
                    format!("{} corps {} arrives in {at}", c.nation, c.number),
                ));
            }
        }
    }
    for c in state.commanders.iter_mut() {
        if let Some(t) = c.arrives
            && t <= now
            && c.location.is_none()
        {
            let spec = scenario.power(c.nation).commanders.iter().find(|s| s.name == c.name);
            let at = spec
                .and_then(|s| s.at.clone())
                .unwrap_or_else(|| scenario.power(c.nation).capital.clone());
            c.location = Some(at.clone());
            c.arrives = None;
            out.push(
                Outcome::new(
                    "2.5",
                    "commander-arrives",
                    format!("{} commander {} arrives in {at}", c.nation.adjective(), c.name),
                )
                .power(c.nation),
            );
        }
    }
}
