//! 4.2 The Winterphase Economic Phase, the Diplomacy Phase's gifts and
//! loans (4.211, 4.212) and the bookkeeping of deficits (4.221).
//!
//! Order within the Winterphase (3.7 A): Tax Collection (4.21, with the
//! embargo income loss 4.258), Expenses (4.22), VP Collection (4.23, then
//! the Continental System's VP losses 4.257 and the markers 4.256), VP
//! Purchase (4.25), Diplomacy Phase gifts and loans (4.3), NPC Alliance
//! Phase (4.4, in `diplomacy`), minor desertion (3.41).
//!
//! Every major power keeps a treasury and collects taxes and VP — NPCs
//! too (their Gold pays their upkeep; only Player Countries can win, 7.1).
//! A deficit (4.221) is kept in `debt`, never as negative Gold: Gold that
//! comes in is first used to repay it at the next purchase or Expense
//! Step, and no voluntary spending is possible while it is above zero.

use super::outcome::Outcome;
use crate::ids::{Nation, PowerId};
use crate::map::Owner;
use crate::rules::Kind;
use crate::rules::Why;
use crate::scenario::Scenario;
use crate::state::{Control, State};

/// 4.21: the major power that controls `province` for taxes and VP: the
/// nation of a garrison division in it, else the home power of a home
/// province (no foreign garrison), else nobody. A rebellion (2.25) holds
/// the province for nobody.
pub fn controller(scenario: &Scenario, state: &State, province: &str) -> Option<PowerId> {
    let ps = state.provinces.get(province)?;
    if ps.rebellion {
        return None;
    }
    if let Some(g) = &ps.garrison {
        return state.garrison_power(g);
    }
    let pr = scenario.map.province(province)?;
    match &pr.owner {
        Owner::Major(p) if pr.kind.is_home() => Some(*p),
        _ => None,
    }
}

/// Provinces controlled by `power` (4.21), in id order.
pub fn controlled(scenario: &Scenario, state: &State, power: PowerId) -> Vec<String> {
    state
        .provinces
        .keys()
        .filter(|id| controller(scenario, state, id) == Some(power))
        .cloned()
        .collect()
}

/// 4.213: whether foreign forces hold `power`'s capital now (a foreign
/// corps or a foreign garrison in it).
pub fn capital_occupied(scenario: &Scenario, state: &State, power: PowerId) -> bool {
    let cap = &scenario.power(power).capital;
    let foreign_corps = state.corps_in(cap).any(|c| state.corps_power(c) != Some(power));
    let foreign_garrison = state
        .provinces
        .get(cap)
        .and_then(|p| p.garrison.as_ref())
        .is_some_and(|g| state.garrison_power(g) != Some(power));
    foreign_corps || foreign_garrison
}

/// 4.213: at the end of each Combat Season, count the consecutive turns
/// each capital has been held by foreign forces.
pub fn update_capitals(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    for p in PowerId::ALL {
        let occ = capital_occupied(scenario, state, p);
        let ps = state.power_mut(p);
        if occ {
            ps.capital_lost_turns += 1;
            out.push(
                Outcome::new(
                    "4.213",
                    Kind::CapitalOccupied,
                    format!(
                        "{}'s capital is held by foreign forces ({} consecutive turn(s))",
                        p.name(),
                        ps.capital_lost_turns
                    ),
                )
                .power(p),
            );
        } else {
            ps.capital_lost_turns = 0;
        }
    }
}

/// 4.221: repay a deficit from the treasury first; returns whether the
/// power is now free of debt.
pub fn repay_debt(state: &mut State, p: PowerId, out: &mut Vec<Outcome>) -> bool {
    let ps = state.power_mut(p);
    if ps.debt > 0 && ps.gold > 0 {
        let pay = ps.debt.min(ps.gold);
        ps.gold -= pay;
        ps.debt -= pay;
        let left = ps.debt;
        out.push(
            Outcome::new(
                "4.221",
                Kind::DeficitRepaid,
                format!("{} repays {pay} Gold of its deficit", p.name()),
            )
            .power(p)
            .gold(p, -pay)
            .why(format!("deficit left: {left} Gold"))
            .only(vec![p]),
        );
    }
    state.power(p).debt == 0
}

/// 4.21 Tax Collection Step (embargo income loss follows in `embargo`).
pub fn tax(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let lost = scenario.tables.economy.capital_loss_turns;
    for p in PowerId::ALL {
        let mut provs = controlled(scenario, state, p);
        // 11.x.2: a kingdom's components pay into its own treasury
        provs.retain(|id| super::political::treasury::pays_into(scenario, state, id).is_none());
        let ps = state.power(p);
        if ps.capital_lost_turns >= lost {
            out.push(
                Outcome::new(
                    "4.213",
                    Kind::Tax,
                    format!("{} collects no taxes: its capital is lost", p.name()),
                )
                .power(p)
                .why(format!(
                    "capital held by foreign forces {} consecutive turns (table economy: {lost} stop taxes)",
                    ps.capital_lost_turns
                )),
            );
            continue;
        }
        let total: i64 = provs
            .iter()
            .filter_map(|id| scenario.map.province(id))
            .map(|pr| i64::from(pr.econ))
            .sum();
        state.power_mut(p).gold += total;
        let mut o = Outcome::new(
            "4.21",
            Kind::Tax,
            format!("{} collects {total} Gold in taxes", p.name()),
        )
        .power(p)
        .gold(p, total);
        for id in &provs {
            if let Some(pr) = scenario.map.province(id) {
                o = o.why(format!("{}: {}", pr.name, pr.econ));
            }
        }
        out.push(o);
    }
}

/// 4.22 Expense Step: 10 Gold per allied NPC, 5 if at war with any major
/// power (controlled NPCs cost nothing, FAQ98); carried debt is paid
/// first; what cannot be paid becomes a deficit (4.221).
pub fn expenses(state: &mut State, scenario: &Scenario, out: &mut Vec<Outcome>) {
    let t = &scenario.tables.economy;
    for p in PowerId::ALL {
        let allied_npcs: Vec<PowerId> = PowerId::ALL
            .into_iter()
            .filter(|n| state.power(*n).control == Control::Allied { with: p })
            .collect();
        let at_war = state.relations.at_war_with_any(p);
        let mut cost = t.npc_ally_upkeep * allied_npcs.len() as i64;
        let mut why = Vec::new();
        for n in &allied_npcs {
            why.push(format!("allied NPC {}: {}", n.name(), t.npc_ally_upkeep));
        }
        if at_war {
            cost += t.war_upkeep;
            why.push(format!("at war with a major power: {}", t.war_upkeep));
        }
        let ps = state.power_mut(p);
        let owed = ps.debt + cost;
        if owed == 0 {
            continue;
        }
        if ps.debt > 0 {
            why.push(format!("deficit carried over: {}", ps.debt));
        }
        let pay = owed.min(ps.gold.max(0));
        ps.gold -= pay;
        ps.debt = owed - pay;
        let debt = ps.debt;
        let mut o = Outcome::new(
            "4.22",
            Kind::Expenses,
            format!("{} pays {pay} Gold in expenses", p.name()),
        )
        .power(p)
        .gold(p, -pay);
        for w in why {
            o = o.why(w);
        }
        if debt > 0 {
            o = o.why(Why::rule(
                "4.221",
                format!("{debt} Gold cannot be paid: deficit; nothing else may be bought until it is repaid"),
            ));
        }
        out.push(o);
    }
}

/// 4.23 Victory Point Collection Step.
pub fn collect_vp(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    for p in PowerId::ALL {
        let provs = controlled(scenario, state, p);
        let total: i64 = provs
            .iter()
            .filter_map(|id| scenario.map.province(id))
            .map(|pr| i64::from(pr.pol))
            .sum();
        state.power_mut(p).vp += total;
        let mut o = Outcome::new("4.23", Kind::VpCollection, format!("{} collects {total} VP", p.name()))
            .power(p)
            .vp(p, total);
        for id in &provs {
            if let Some(pr) = scenario.map.province(id) {
                o = o.why(format!("{}: {}", pr.name, pr.pol));
            }
        }
        out.push(o);
    }
}

/// 4.25 Victory Point Purchase (house rate and cap from `economy.toml`):
/// `gold` is rounded down to whole VP; blocked by a deficit (4.221).
pub fn buy_vp(scenario: &Scenario, state: &mut State, p: PowerId, gold: u32, text: &str, out: &mut Vec<Outcome>) {
    let t = &scenario.tables.economy;
    if !repay_debt(state, p, out) {
        out.push(rejected(
            "4.221",
            p,
            text,
            "a deficit must be repaid before any purchase",
        ));
        return;
    }
    let ps = state.power(p);
    let afford = u32::try_from(ps.gold.max(0)).unwrap_or(u32::MAX);
    let vp = (gold.min(afford) / t.gold_per_vp.max(1)).min(t.vp_cap(p));
    if vp == 0 {
        out.push(rejected(
            "4.25",
            p,
            text,
            &format!(
                "{gold} Gold buys no VP ({} Gold per VP, treasury {})",
                t.gold_per_vp, ps.gold
            ),
        ));
        return;
    }
    let cost = i64::from(vp * t.gold_per_vp);
    let ps = state.power_mut(p);
    ps.gold -= cost;
    ps.vp += i64::from(vp);
    out.push(
        Outcome::new(
            "4.25",
            Kind::VpPurchase,
            format!("{} buys {vp} VP for {cost} Gold", p.name()),
        )
        .power(p)
        .order(text)
        .gold(p, -cost)
        .vp(p, i64::from(vp))
        .why(format!(
            "table economy: {} Gold per VP, at most {} VP a Winter for {}",
            t.gold_per_vp,
            t.vp_cap(p),
            p.name()
        )),
    );
}

/// 4.211/4.212: a gift (or a loan: the engine moves the Gold; repayment is
/// between the players) of Gold to another power. Blocked by a deficit.
pub fn gift(state: &mut State, p: PowerId, to: PowerId, gold: u32, loan: bool, text: &str, out: &mut Vec<Outcome>) {
    let what = if loan { "lends" } else { "gives" };
    if to == p {
        out.push(rejected("4.212", p, text, "a power cannot give Gold to itself"));
        return;
    }
    if !repay_debt(state, p, out) {
        out.push(rejected(
            "4.221",
            p,
            text,
            "a deficit must be repaid before any other expenditure",
        ));
        return;
    }
    let amount = i64::from(gold).min(state.power(p).gold.max(0));
    if amount == 0 {
        out.push(rejected("4.212", p, text, "the treasury is empty"));
        return;
    }
    state.power_mut(p).gold -= amount;
    state.power_mut(to).gold += amount;
    let mut o = Outcome::new(
        "4.212",
        if loan { Kind::Loan } else { Kind::Gift },
        format!("{} {what} {amount} Gold to {}", p.name(), to.name()),
    )
    .power(p)
    .order(text)
    .gold(p, -amount)
    .gold(to, amount)
    .only(vec![p, to]);
    if i64::from(gold) > amount {
        o = o.why(format!("only {amount} Gold in the treasury"));
    }
    out.push(o);
}

/// 3.41 Desertion: divisions of a wholly conquered minor power held in
/// corps of other nations desert, `desertion_per_winter` per minor per
/// Winter, to the conqueror's pool of that minor.
pub fn desertion(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let per = scenario.tables.economy.desertion_per_winter as usize;
    let minors: Vec<String> = state.minors.keys().cloned().collect();
    for m in minors {
        let Some(conqueror) = conqueror(scenario, state, &m) else {
            continue;
        };
        let nation = Nation::Minor(m.clone());
        // the conqueror's player's own, his Allied NPCs included, keep
        // their divisions of it (3.44 lets them buy the minor's units)
        let ours: Vec<PowerId> = PowerId::ALL
            .into_iter()
            .filter(|q| super::side::same_player(state, *q, conqueror))
            .collect();
        let own = |q: PowerId| ours.contains(&q);
        let mut n = 0;
        for c in state.corps.iter_mut() {
            if n >= per {
                break;
            }
            // its own corps desert only while kept by a former owner (3.41)
            let kept = c.nation == nation && c.held_by.is_some_and(|h| !own(h));
            if matches!(c.nation, Nation::Major(q) if own(q)) || (c.nation == nation && !kept) {
                continue;
            }
            if let Some(i) = c.divisions.iter().position(|d| d.nation == nation) {
                let d = c.divisions.remove(i);
                n += 1;
                let holder = c.held_by.map_or_else(|| c.nation.clone(), Nation::Major);
                if kept && c.divisions.is_empty() {
                    // the emptied counter leaves the map for the new owner
                    c.location = None;
                    c.held_by = None;
                }
                if let Some(ms) = state.minors.get_mut(&m) {
                    *ms.pool.of_mut(d.arm) += 1;
                }
                out.push(
                    Outcome::new(
                        "3.41",
                        Kind::Desertion,
                        format!(
                            "A {} {} division deserts {holder}'s corps {}",
                            m,
                            d.arm.short(),
                            c.number
                        ),
                    )
                    .why(format!("{m} is wholly conquered by {}", conqueror.name())),
                );
            }
        }
    }
}

/// 3.41: the major power holding every province of a minor power, if one
/// does.
///
/// 2.5: a province where the minor starts with a garrison of conquest of
/// its own (the Swedish division in Finland) does not count: while that
/// division stands nobody controls the minor; once it is gone the minor
/// goes to whoever holds its other provinces, whoever holds that one.
pub fn conqueror(scenario: &Scenario, state: &State, minor: &str) -> Option<PowerId> {
    let own = Nation::Minor(minor.to_string());
    let start_garrisons = scenario
        .minors
        .get(minor)
        .map(|m| m.garrisons.as_slice())
        .unwrap_or(&[]);
    let mut provs = Vec::new();
    for p in scenario.map.owned_by(minor) {
        if start_garrisons.contains(&p.id) {
            // 2.5: "This Division must be eliminated to control" the minor
            if state
                .provinces
                .get(&p.id)
                .is_some_and(|ps| ps.garrison.as_ref().is_some_and(|g| g.nation == own))
            {
                return None;
            }
            continue;
        }
        provs.push(p.id.as_str());
    }
    let first = controller(scenario, state, provs.first()?)?;
    provs
        .iter()
        .all(|p| controller(scenario, state, p) == Some(first))
        .then_some(first)
}

/// A rejected order, as an outcome.
pub fn rejected(rule: &str, p: PowerId, text: &str, reason: &str) -> Outcome {
    Outcome::new(rule, Kind::OrderRejected, format!("not carried out: {reason}"))
        .power(p)
        .order(text)
        .only(vec![p])
}

/// 3.41, 3.43: a minor power wholly held by one major power passes to it:
/// its unbuilt pool and its surviving squadrons change sides at once
/// (the squadrons follow `controller`) and join the new owner's nearest
/// squadrons.
pub fn minor_conquests(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let ids: Vec<String> = state.minors.keys().cloned().collect();
    for m in ids {
        if !scenario
            .minors
            .get(&m)
            .is_some_and(|s| s.kind == crate::scenario::MinorKind::MinorPower)
        {
            continue;
        }
        let Some(c) = conqueror(scenario, state, &m) else {
            continue;
        };
        let Some(ms) = state.minors.get_mut(&m) else { continue };
        if ms.controller != Some(c) {
            let old = ms.controller;
            let mut o = Outcome::new(
                "3.41",
                Kind::MinorConquered,
                format!("{} conquers the minor power {m}", c.name()),
            )
            .power(c)
            .why("every province of the minor power is held by it (4.21)");
            for g in scenario.minors.get(&m).map(|s| s.garrisons.as_slice()).unwrap_or(&[]) {
                // 2.5
                o = o.why(Why::rule(
                    "2.5",
                    format!("its garrison of conquest in {g} is gone, so {g} need not be held"),
                ));
            }
            if let Some(old) = old {
                o = o.why(format!(
                    "its squadrons and unbuilt forces leave {}; its corps in play stay with {} until destroyed or deserted",
                    old.name(),
                    old.name()
                ));
            }
            use crate::rules::war::control::{Handover, minor_changes_hands};
            for w in minor_changes_hands(scenario, state, &m, old, c, Handover::Conquest) {
                o = o.why(w);
            }
            out.push(o);
        }
    }
}
