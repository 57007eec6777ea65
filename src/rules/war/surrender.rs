//! 5.12 Surrender and its terms; 2.7 the Enforced Peace Record.
//!
//! The trigger and the terms are house rules (rules-notes §2.8,
//! `tables/surrender.toml`): a power whose capital has been held by an
//! enemy for `capital_turns` consecutive turns must surrender to that
//! enemy. Surrendering:
//! - ends the war with the victor and records an enforced peace (2.7);
//! - pays the terms (Gold, VP, provinces ceded to the victor, who
//!   garrisons them from its pool);
//! - costs the surrenderer `surrender_vp` and never its allies (QA03);
//! - gives up every minor province it holds, and its remapable home
//!   provinces as if minor (3.4, 2.12e);
//! - the victor vacates the surrenderer's home provinces, capital
//!   included (5.127): its corps go to its nearest friendly province,
//!   its garrisons return to its pool;
//! - repatriates the surrenderer's corps outside its home or controlled
//!   provinces to the nearest friendly province (5.123).
//!
//! Rules I calls [`surrender`] from the Peace Step (5.1) and [`due`] to
//! find forced surrenders.

use super::control::{friendly, hostile, name, to_pool_arm};
use crate::ids::{Nation, PowerId, Turn};
use crate::map::{Owner, ProvinceKind};
use crate::orders::ast::Terms;
use crate::rules::Kind;
use crate::rules::Why;
use crate::rules::{Outcome, Rejection};
use crate::scenario::{Arm, Scenario};
use crate::state::{Control, EnforcedPeace, Garrison, State};
use std::collections::BTreeSet;

/// The enemy to whom `power` must surrender now, if any (house trigger).
pub fn due(scenario: &Scenario, state: &State, power: PowerId) -> Option<PowerId> {
    let t = &scenario.tables.surrender;
    if state.power(power).capital_lost_turns < t.capital_turns {
        return None;
    }
    let capital = &scenario.powers.get(&power)?.capital;
    let holder = state.provinces.get(capital)?.controller.as_ref()?;
    let h = state.commanding_power(holder)?;
    (h != power && state.relations.at_war(h, power)).then_some(h)
}

/// The terms of a forced surrender when none are negotiated (house:
/// `default_gold` reparations, no VP or provinces beyond the table's).
pub fn default_terms(scenario: &Scenario) -> Terms {
    Terms {
        gold: scenario.tables.surrender.default_gold,
        vp: 0,
        provinces: Vec::new(),
        ..Terms::default()
    }
}

/// Whether a declaration of war is barred by an enforced peace (2.7).
pub fn declaration_barred(state: &State, a: PowerId, b: PowerId) -> Option<Rejection> {
    state.relations.enforced(a, b, state.turn()).map(|e| {
        Rejection::new(
            "2.7",
            format!(
                "{} and {} are under an enforced peace until {}",
                a.name(),
                b.name(),
                e.until
            ),
        )
    })
}

fn add_seasons(mut t: Turn, n: u32) -> Turn {
    for _ in 0..n {
        t = t.next();
    }
    t
}

/// Nearest province (by land steps) from `from` that is friendly to
/// `power` and holds no enemy army; the capital as a last resort.
fn nearest_friendly(scenario: &Scenario, state: &State, power: PowerId, from: &str) -> Option<String> {
    let me = Nation::Major(power);
    let mut best: Option<(u32, String)> = None;
    for p in &scenario.map.provinces {
        if !friendly(state, power, &p.id) || state.corps_in(&p.id).any(|c| hostile(state, &me, c)) {
            continue;
        }
        if let Some(d) = scenario.map.distance(&[from], &p.id, |_| 1) {
            let better = match &best {
                None => true,
                Some((bd, bid)) => d < *bd || (d == *bd && p.id < *bid),
            };
            if better {
                best = Some((d, p.id.clone()));
            }
        }
    }
    best.map(|b| b.1)
        .or_else(|| scenario.powers.get(&power).map(|s| s.capital.clone()))
}

/// 5.1, 5.12: `from` cedes province `pid` to `to` under peace or
/// surrender terms. Only a province `from` held (`held`, taken before the
/// terms change anything) can be ceded; `to` garrisons it with an
/// infantry division from its pool (2.23) unless it is one of its own
/// home provinces; the province's old garrison returns to its pool and
/// its controller is `to`. Returns whether it was ceded and why.
pub fn cede(
    scenario: &Scenario,
    state: &mut State,
    from: PowerId,
    to: PowerId,
    pid: &str,
    held: &BTreeSet<String>,
) -> (bool, String) {
    let Some(p) = scenario.map.province(pid) else {
        return (false, format!("terms: no province '{pid}' to cede"));
    };
    if !held.contains(pid) {
        return (
            false,
            format!("terms: {} does not hold {}, so cannot cede it", from.name(), p.name),
        );
    }
    let home_of_to = p.kind.is_home() && p.owner == Owner::Major(to);
    if !home_of_to && state.power(to).pool.infantry == 0 {
        return (
            false,
            format!(
                "terms: {} cannot garrison {}: no infantry in its pool (2.23)",
                to.name(),
                p.name
            ),
        );
    }
    if let Some(g) = state.provinces.get_mut(pid).and_then(|x| x.garrison.take()) {
        to_pool_arm(state, &g.nation, Arm::Infantry);
    }
    let tn = Nation::Major(to);
    if !home_of_to {
        state.power_mut(to).pool.infantry -= 1;
    }
    if let Some(x) = state.provinces.get_mut(pid) {
        x.controller = Some(tn.clone());
        x.garrison = (!home_of_to).then_some(Garrison::of(tn));
    }
    crate::rules::political::peace::record_cession(scenario, state, from, pid); // 11.9.1.1
    (
        true,
        format!(
            "terms: {} is ceded to {}{}",
            p.name,
            to.name(),
            if home_of_to {
                ""
            } else {
                ", which garrisons it from its pool"
            }
        ),
    )
}

/// `loser` surrenders to `victor` with `terms`.
pub fn surrender(
    scenario: &Scenario,
    state: &mut State,
    loser: PowerId,
    victor: PowerId,
    terms: &Terms,
) -> Vec<Outcome> {
    // 11.9.1.1, 11.9.2.2 (EiA option political): terms the option forbids
    if let Some(r) = crate::rules::political::peace::terms_refused(scenario, state, loser, victor, terms) {
        return vec![crate::rules::economy::rejected(r.rule.as_str(), loser, "", &r.reason)];
    }
    let o = Outcome::new(
        "5.12",
        Kind::Surrender,
        format!("{} surrenders to {}", loser.name(), victor.name()),
    )
    .power(loser);
    let s = Surrender {
        scenario,
        loser,
        victor,
    };
    let o = s.enforce_peace(state, o);
    // what the loser holds as it surrenders: all it can cede (5.12)
    let held: BTreeSet<String> = crate::rules::economy::controlled(scenario, state, loser)
        .into_iter()
        .collect();
    let o = s.pay(state, terms, o);
    let o = s.give_up_provinces(state, o);
    // terms: provinces ceded to the victor (5.1, 5.12), garrisoned from
    // its pool; only what the loser held when it surrendered
    let mut o = o;
    let mut ceded = BTreeSet::new();
    for pid in &terms.provinces {
        let (done, why) = cede(scenario, state, loser, victor, pid, &held);
        if done {
            ceded.insert(pid.clone());
        }
        o = o.why(why);
    }
    let o = crate::rules::political::peace::carry_out(state, loser, victor, terms, o); // 11.9.2.2
    let o = s.vacate_homes(state, &ceded, o);
    // 11.1.4, 11.4.4, 11.5.1.2, 11.5.1.3 (EiA political option)
    let o = crate::rules::political::ceding::after_surrender(scenario, state, loser, victor, &terms.provinces, o);
    let mut o = s.repatriate(state, o);
    // 3.31: an NPC at peace with every PC becomes inactive again
    if matches!(state.power(loser).control, Control::Controlled { .. }) && !state.relations.at_war_with_any(loser) {
        state.power_mut(loser).control = Control::Inactive;
        o = o.why(Why::rule(
            "3.31",
            format!("{} is at peace with everyone and becomes inactive", loser.name()),
        ));
    }
    state.power_mut(loser).capital_lost_turns = 0;
    // 5.123: for the rest of this turn it moves only within what it controls
    state.power_mut(loser).surrendered = Some(state.turn());
    vec![o]
}

/// A surrender being carried out (5.12): each step adds its why lines to
/// the surrender's outcome.
struct Surrender<'a> {
    scenario: &'a Scenario,
    loser: PowerId,
    victor: PowerId,
}

impl Surrender<'_> {
    /// 2.7: peace and the enforced peace record.
    fn enforce_peace(&self, state: &mut State, o: Outcome) -> Outcome {
        let (loser, victor) = (self.loser, self.victor);
        let t = &self.scenario.tables.surrender;
        state.relations.set_war(loser, victor, false);
        let until = add_seasons(state.turn(), t.enforced_peace_seasons);
        let powers = if loser <= victor {
            [loser, victor]
        } else {
            [victor, loser]
        };
        state.relations.enforced_peace.retain(|e| e.powers != powers);
        state.relations.enforced_peace.push(EnforcedPeace { powers, until });
        state.relations.enforced_peace.sort();
        o.why(Why::rule(
            "2.7",
            format!(
                "enforced peace until {until} ({} seasons, tables/surrender.toml)",
                t.enforced_peace_seasons
            ),
        ))
    }

    /// The terms' Gold and VP, and the surrender's VP (QA03).
    fn pay(&self, state: &mut State, terms: &Terms, mut o: Outcome) -> Outcome {
        let (loser, victor) = (self.loser, self.victor);
        let t = &self.scenario.tables.surrender;
        // terms: Gold and VP. Reparations beyond the treasury are not paid
        // from a negative treasury: the rest is a deficit (4.211, 4.221).
        let gold = terms.gold as i64;
        if gold > 0 {
            let pay = gold.min(state.power(loser).gold.max(0));
            state.power_mut(loser).gold -= pay;
            state.power_mut(victor).gold += pay;
            if pay > 0 {
                o = o.gold(loser, -pay).gold(victor, pay);
            }
            if pay < gold {
                state.power_mut(loser).debt += gold - pay;
                o = o.why(format!(
                    "reparations: {} pays {pay} of {gold} Gold; the other {} Gold are a deficit (4.211, 4.221)",
                    loser.name(),
                    gold - pay
                ));
            }
        }
        let vp_terms = terms.vp as i64;
        // QA03: only the surrendering power loses VP, never its allies
        let lose_vp = t.surrender_vp - vp_terms;
        state.power_mut(loser).vp += lose_vp;
        state.power_mut(victor).vp += t.victor_vp + vp_terms;
        o = o.vp(loser, lose_vp).vp(victor, t.victor_vp + vp_terms);
        o = o.why(format!(
            "VP: {} {lose_vp:+}, {} {:+}; allies of {} lose nothing (QA03)",
            loser.name(),
            victor.name(),
            t.victor_vp + vp_terms,
            loser.name()
        ));
        o
    }

    /// 3.4, 2.12e: the loser gives up the minor provinces and remapable
    /// home provinces it holds.
    fn give_up_provinces(&self, state: &mut State, mut o: Outcome) -> Outcome {
        let (scenario, loser) = (self.scenario, self.loser);
        let me = Nation::Major(loser);
        for p in &scenario.map.provinces {
            let Some(ps) = state.provinces.get(&p.id).cloned() else {
                continue;
            };
            if ps.controller.as_ref() != Some(&me) {
                continue;
            }
            // 11.8.2.6: a province annexed by a dominant power is its home
            let annexed = state.dominance.annexed.get(&p.id) == Some(&loser);
            let own_home = (p.kind == ProvinceKind::Home && p.owner == Owner::Major(loser)) || annexed;
            if own_home {
                continue;
            }
            if let Some(g) = ps.garrison.as_ref().filter(|g| state.garrison_power(g) == Some(loser)) {
                to_pool_arm(state, &g.nation.clone(), Arm::Infantry);
            }
            let back = super::control::original_owner(p).filter(|n| n != &me);
            if let Some(x) = state.provinces.get_mut(&p.id) {
                x.controller = back;
                x.garrison = None;
            }
            o = o.why(format!(
                "{} gives up {}{}",
                loser.name(),
                p.name,
                if p.kind == ProvinceKind::RemapableHome {
                    " (remapable home province, as if minor, 2.12e)"
                } else {
                    " (3.4)"
                }
            ));
        }
        o
    }

    /// 5.127: the victor vacates the surrenderer's home provinces (a home
    /// province ceded by the terms is the victor's now: it stays).
    fn vacate_homes(&self, state: &mut State, ceded: &BTreeSet<String>, mut o: Outcome) -> Outcome {
        let (scenario, loser, victor) = (self.scenario, self.loser, self.victor);
        let me = Nation::Major(loser);
        let homes: Vec<String> = scenario
            .home_provinces(loser)
            .map(|p| p.id.clone())
            .filter(|h| !ceded.contains(h))
            .collect();
        for h in &homes {
            if let Some(ps) = state.provinces.get(h).cloned()
                && let Some(g) = &ps.garrison
                && state.commanding_power(&g.nation) == Some(victor)
            {
                to_pool_arm(state, &g.nation, Arm::Infantry);
                if let Some(x) = state.provinces.get_mut(h) {
                    x.garrison = None;
                    x.controller = Some(me.clone());
                }
                o = o.why(Why::rule(
                    "5.127",
                    format!("the {} garrison leaves {}", victor.adjective(), name(scenario, h)),
                ));
            }
            if state
                .provinces
                .get(h)
                .is_some_and(|ps| ps.controller.as_ref().and_then(|c| state.commanding_power(c)) == Some(victor))
                && let Some(x) = state.provinces.get_mut(h)
            {
                x.controller = Some(me.clone());
            }
            let victors: Vec<(Nation, u32)> = state
                .corps_in(h)
                .filter(|c| state.corps_power(c) == Some(victor))
                .map(|c| (c.nation.clone(), c.number))
                .collect();
            for (n, num) in victors {
                let dest = nearest_friendly(scenario, state, victor, h);
                if let Some(c) = state.corps_mut(&n, num) {
                    c.location = dest.clone();
                }
                o = o.why(Why::rule(
                    "5.127",
                    format!(
                        "{n} corps {num} leaves {} for {}",
                        name(scenario, h),
                        dest.as_deref()
                            .map(|d| name(scenario, d))
                            .unwrap_or_else(|| "off the map".into())
                    ),
                ));
            }
        }
        o
    }

    /// 5.123: the surrenderer's corps outside its home or controlled
    /// provinces go to the nearest friendly province.
    fn repatriate(&self, state: &mut State, mut o: Outcome) -> Outcome {
        let (scenario, loser) = (self.scenario, self.loser);
        let abroad: Vec<(Nation, u32, String)> = state
            .corps
            .iter()
            .filter(|c| state.corps_power(c) == Some(loser))
            .filter_map(|c| c.location.clone().map(|l| (c.nation.clone(), c.number, l)))
            .filter(|(_, _, l)| !friendly(state, loser, l))
            .collect();
        for (n, num, l) in abroad {
            let dest = nearest_friendly(scenario, state, loser, &l);
            if let Some(c) = state.corps_mut(&n, num) {
                c.location = dest.clone();
            }
            o = o.why(Why::rule(
                "5.123",
                format!(
                    "{n} corps {num} is repatriated from {} to {}",
                    name(scenario, &l),
                    dest.as_deref()
                        .map(|d| name(scenario, d))
                        .unwrap_or_else(|| "off the map".into())
                ),
            ));
        }
        o
    }
}
