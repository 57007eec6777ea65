//! Random-but-legal orders for a power in the open phase: political
//! actions, builds and VP purchases (the military orders are rules II's).
//! Used by `empereur autoplay`, the campaign tests and the benchmarks.
//! Deterministic: everything comes from `rng_seed`. Every order returned
//! passes [`crate::rules::legality::judge`].

use super::{Rng, line};
use crate::ids::{Nation, PowerId, Step};
use crate::orders::ast::{BuildItem, EmbargoAction, Order, OrderLine, PoliticalOrder, Terms};
use crate::scenario::tables_political::CounterKind;
use crate::scenario::{Arm, Scenario};
use crate::state::{Control, State};

fn pick<T: Copy>(rng: &mut Rng, v: &[T]) -> Option<T> {
    if v.is_empty() {
        None
    } else {
        Some(v[rng.below(v.len() as u32) as usize - 1])
    }
}

/// Generate orders for `power` in the open phase.
pub fn generate(scenario: &Scenario, state: &State, power: PowerId, rng_seed: u64) -> Vec<OrderLine> {
    let mut rng = Rng::new(rng_seed ^ (power as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
    let mut out = Vec::new();
    match state.phase.step {
        Step::Bid => {
            let vp = rng.below(11) - 1;
            out.push(line(
                Order::Bid {
                    vp,
                    preferences: Vec::new(),
                },
                format!("bid {vp}"),
            ));
        }
        Step::TurnStart => {
            if power == PowerId::France && chance(&mut rng, 50) {
                out.push(line(Order::MoveFirst, "move first".into()));
            }
        }
        Step::PlayerTurn(m) if m == power => own_turn(scenario, state, power, &mut rng, &mut out),
        Step::PlayerTurn(m) => {
            if state.relations.at_war(power, m) && chance(&mut rng, 40) {
                out.push(line(Order::AcceptPeace { from: m }, format!("accept peace from {m}")));
            }
            if chance(&mut rng, 30) {
                out.push(line(
                    Order::AcceptAlliance { from: m },
                    format!("accept alliance from {m}"),
                ));
            }
        }
        Step::Build => {
            build(scenario, state, power, &mut rng, &mut out);
            super::naval::build_orders(scenario, state, power, rng_seed, &mut out); // 12.2.8.3-4
        }
        Step::Winter => winter(scenario, state, power, &mut rng, &mut out),
    }
    super::keep_what_the_set_allows(scenario, state, power, &mut out);
    out
}

/// A `pct` per cent chance.
fn chance(rng: &mut Rng, pct: u32) -> bool {
    rng.below(100) <= pct
}

/// The orders of `power`'s own Player Turn: war, peace, alliances, the
/// Continental System.
fn own_turn(scenario: &Scenario, state: &State, power: PowerId, rng: &mut Rng, out: &mut Vec<OrderLine>) {
    let others: Vec<PowerId> = PowerId::ALL.into_iter().filter(|p| *p != power).collect();
    if chance(rng, 15)
        && let Some(on) = pick(rng, &others)
    {
        out.push(line(Order::DeclareWar { on }, format!("declare war on {on}")));
    }
    let enemies = state.relations.enemies(power);
    if chance(rng, 25)
        && let Some(to) = pick(rng, &enemies)
    {
        let gold = rng.below(6) - 1;
        let terms = Terms {
            gold,
            vp: 0,
            provinces: Vec::new(),
            ..Terms::default()
        };
        // 11.9.2.2: France and Britain may only offer the mandatory conditions
        let terms = crate::rules::political::peace::with_mandatory(scenario, state, power, to, terms);
        let order = Order::OfferPeace { to, terms };
        let text = crate::orders::text::normalise(scenario, &order);
        out.push(line(order, text));
    }
    let pcs: Vec<PowerId> = others
        .iter()
        .copied()
        .filter(|p| state.power(*p).control.is_player())
        .collect();
    if chance(rng, 10)
        && let Some(to) = pick(rng, &pcs)
    {
        out.push(line(Order::ProposeAlliance { to }, format!("propose alliance to {to}")));
    }
    let npcs: Vec<PowerId> = others
        .iter()
        .copied()
        .filter(|p| !state.power(*p).control.is_player())
        .collect();
    if chance(rng, 15)
        && let Some(npc) = pick(rng, &npcs)
    {
        out.push(line(Order::NpcAlliance { npc }, format!("npc alliance {npc}")));
    }
    if power == PowerId::France
        && !state.embargo.active
        && crate::rules::embargo::may_declare(scenario, state)
        && chance(rng, 60)
    {
        out.push(line(
            Order::Embargo {
                action: EmbargoAction::Declare,
            },
            "embargo declare".into(),
        ));
    }
}

/// The Build step: a division in a corps with room, a squadron in a
/// capital with a port.
fn build(scenario: &Scenario, state: &State, power: PowerId, rng: &mut Rng, out: &mut Vec<OrderLine>) {
    let nation = Nation::Major(power);
    let open: Vec<u32> = state
        .corps
        .iter()
        .filter(|c| c.nation == nation && c.location.is_some() && c.divisions.len() < c.capacity())
        .map(|c| c.number)
        .collect();
    let pool = state.power(power).pool;
    let arms: Vec<Arm> = [Arm::Infantry, Arm::Cavalry, Arm::Artillery]
        .into_iter()
        .filter(|a| pool.of(*a) > 0)
        .collect();
    if chance(rng, 70)
        && let (Some(number), Some(arm)) = (pick(rng, &open), pick(rng, &arms))
    {
        out.push(build_one(&nation, number, arm));
    }
    kingdom_corps(scenario, state, power, rng, out);
    kingdom_fleet(scenario, state, power, rng, out);
    let cap = &scenario.power(power).capital;
    if pool.squadrons > 0 && scenario.map.province(cap).is_some_and(|p| p.port) && chance(rng, 20) {
        out.push(line(
            Order::BuildSquadron {
                port: cap.clone(),
                count: 1,
                nation: None,
            },
            format!("build 1 squadron in {cap}"),
        ));
    }
}

/// One division of `arm` of `nation` built into its corps `number`.
fn build_one(nation: &Nation, number: u32, arm: Arm) -> OrderLine {
    line(
        Order::Build {
            corps: crate::state::UnitKey::corps(nation.clone(), number),
            items: vec![BuildItem {
                count: 1,
                arm,
                nation: nation.clone(),
            }],
        },
        format!("build 1 {} in {nation} corps {number}", arm.short()),
    )
}

/// 11.2.2.1, 11.3.2.1: a division of a kingdom's nation into one of the
/// kingdom's own corps counters with room (one off the map enters it in
/// its home province, 3.46), while the nation's pool has one.
fn kingdom_corps(scenario: &Scenario, state: &State, power: PowerId, rng: &mut Rng, out: &mut Vec<OrderLine>) {
    if !crate::rules::political::enabled(state) {
        return;
    }
    let mut open: Vec<(Nation, u32)> = Vec::new();
    for def in &scenario.tables.political.kingdoms {
        if state.political.kingdom(&def.id).is_none_or(|k| k.controller != power) {
            continue;
        }
        for r in def.counters.iter().filter(|r| r.kind == CounterKind::Corps) {
            let nation = Nation::Minor(r.nation.clone());
            let Some(c) = state.corps(&nation, r.number) else {
                continue;
            };
            let usable = match c.location {
                Some(_) => state.corps_power(c) == Some(power),
                None => crate::rules::builds::entry_province(scenario, state, power, c).is_some(),
            };
            if usable && c.divisions.len() < c.capacity() {
                open.push((nation, r.number));
            }
        }
    }
    if open.is_empty() || !chance(rng, 70) {
        return;
    }
    let (nation, number) = open[rng.below(open.len() as u32) as usize - 1].clone();
    let arms: Vec<Arm> = [Arm::Infantry, Arm::Cavalry, Arm::Artillery]
        .into_iter()
        .filter(|a| crate::rules::builds::pool_of(state, &nation, Some(*a)) > 0)
        .collect();
    if let Some(arm) = pick(rng, &arms) {
        out.push(build_one(&nation, number, arm));
    }
}

/// 11.2.2, 11.2.2.2: a kingdom's sunk fleet counter built again in its
/// home port, while its nation's pool holds it. No die is drawn unless
/// there is one, so games without a sunk fleet propose what they did.
fn kingdom_fleet(scenario: &Scenario, state: &State, power: PowerId, rng: &mut Rng, out: &mut Vec<OrderLine>) {
    let sunk = scenario
        .tables
        .political
        .kingdoms
        .iter()
        .flat_map(|d| &d.counters)
        .find(|r| {
            r.kind == CounterKind::Squadron
                && crate::rules::builds::pool_of(state, &Nation::Minor(r.nation.clone()), None) > 0
                && crate::rules::political::forces::fleet_to_rebuild(scenario, state, power, &r.nation, &r.home)
                    .is_some()
        });
    if let Some(r) = sunk
        && chance(rng, 50)
    {
        let nation = Nation::Minor(r.nation.clone());
        out.push(line(
            Order::BuildSquadron {
                port: r.home.clone(),
                count: 1,
                nation: Some(nation.clone()),
            },
            format!("build 1 {nation} squadron in {}", r.home),
        ));
    }
}

/// Winter: VP bought, Gold given to an allied player, an NPC alliance roll,
/// and (EiA political option) every kingdom the power may declare.
fn winter(scenario: &Scenario, state: &State, power: PowerId, rng: &mut Rng, out: &mut Vec<OrderLine>) {
    kingdoms(scenario, state, power, out);
    let others: Vec<PowerId> = PowerId::ALL.into_iter().filter(|p| *p != power).collect();
    let gold = state.power(power).gold.max(0) as u32;
    if gold >= scenario.tables.economy.gold_per_vp && chance(rng, 60) {
        let spend = rng.below(gold / 2 + 1);
        out.push(line(Order::BuyVp { gold: spend }, format!("buy vp {spend}")));
    }
    let allies = state.relations.allies(power);
    if chance(rng, 10)
        && let Some(to) = pick(rng, &allies)
        && state.power(to).control.is_player()
    {
        let g = rng.below(5);
        out.push(line(Order::Gift { to, gold: g }, format!("gift {g} to {to}")));
    }
    let inactive: Vec<PowerId> = others
        .iter()
        .copied()
        .filter(|p| state.power(*p).control == Control::Inactive)
        .collect();
    if chance(rng, 10)
        && let Some(npc) = pick(rng, &inactive)
    {
        out.push(line(Order::NpcAlliance { npc }, format!("npc alliance {npc}")));
    }
}

/// 11.1-11.6: declare every kingdom `power` may create now (its
/// components as `rules::political` takes them: for Poland every Polish
/// province it controls).
fn kingdoms(scenario: &Scenario, state: &State, power: PowerId, out: &mut Vec<OrderLine>) {
    if !crate::rules::political::enabled(state) {
        return;
    }
    for def in &scenario.tables.political.kingdoms {
        let order = PoliticalOrder::Create {
            kingdom: def.id.clone(),
            provinces: Vec::new(),
        };
        if crate::rules::political::check(scenario, state, power, &order).is_ok() {
            let text = format!("create {}", def.name);
            out.push(line(Order::Political(order), text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 11.2.2.2: the controller of a Kingdom of Italy whose Venetia fleet
    /// was sunk builds it again in Venetia, and the order passes the
    /// legality gate; with the kingdom gone nobody proposes it.
    #[test]
    fn the_kingdoms_controller_builds_its_sunk_fleet_again() {
        let s = Scenario::embedded("1805").unwrap();
        let players = PowerId::ALL.into_iter().collect();
        let mut state = State::initial(&s, "t", &players, ["political".to_string()].into_iter().collect());
        let italian = Nation::Minor("italy".into());
        state.political.fleets.push(crate::state::political::KingdomFleet {
            kingdom: "italy".into(),
            nation: italian.clone(),
            number: 1,
        });
        state.political.kingdoms.insert(
            "italy".into(),
            crate::state::Kingdom {
                controller: PowerId::France,
                components: ["illyria", "lombardy", "papacy", "venetia"].map(String::from).into(),
                created: state.turn(),
                gold: 0,
                ceded: false,
            },
        );
        state.minors.get_mut("italy").unwrap().pool.squadrons = 1;
        for p in ["venetia", "lombardy", "papacy", "illyria"] {
            let ps = state.provinces.get_mut(p).unwrap();
            ps.controller = Some(Nation::Major(PowerId::France));
            ps.garrison = Some(crate::state::Garrison::of(Nation::Major(PowerId::France)));
        }
        state.power_mut(PowerId::France).gold = 100;
        state.phase.step = Step::Build;
        let wanted = |state: &State| {
            (0..200u64)
                .flat_map(|seed| generate(&s, state, PowerId::France, seed))
                .find(|l| matches!(&l.order, Order::BuildSquadron { nation: Some(n), .. } if *n == italian))
        };
        let l = wanted(&state).expect("France never builds the Venetia fleet again");
        assert!(crate::rules::legality::judge_one(&s, &state, PowerId::France, &l.order).is_ok());
        state.political.kingdoms.clear();
        assert!(wanted(&state).is_none());
    }

    /// 11.9.2.2: under the political option an autoplayed France at war
    /// with Britain offers peace with NAPOLEON's removal (C.6), and
    /// Britain offers France two squadrons and access (C.1.c, C.5): the
    /// offers pass the legality gate, so the two can make peace.
    #[test]
    fn france_and_britain_offer_the_mandatory_conditions() {
        let s = Scenario::embedded("1805").unwrap();
        let players = PowerId::ALL.into_iter().collect();
        let mut state = State::initial(&s, "t", &players, ["political".to_string()].into_iter().collect());
        state.relations.set_war(PowerId::France, PowerId::Britain, true);
        for (from, to) in [(PowerId::France, PowerId::Britain), (PowerId::Britain, PowerId::France)] {
            state.phase.step = Step::PlayerTurn(from);
            let offer = (0..400u64)
                .flat_map(|seed| generate(&s, &state, from, seed))
                .find_map(|l| match l.order {
                    Order::OfferPeace { to: t, terms } if t == to => Some(terms),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{from} never offers {to} peace"));
            if from == PowerId::France {
                assert_eq!(offer.remove_leaders, ["Napoleon"]);
            } else {
                assert_eq!((offer.remove_squadrons, offer.access), (2, true));
            }
        }
    }
}
