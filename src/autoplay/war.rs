//! Random-but-legal military orders for `empereur autoplay` and the
//! campaign tests: every order generated passes [`crate::rules::legality::judge`].
//!
//! For each corps the power orders (its own, its Allied or Controlled
//! NPCs', its minors'): besiege where it stands if it may, else move
//! along a random legal path, else stay. Squadrons: blockade, attack or
//! sail at random. Randomness comes from a small seeded generator
//! (SplitMix64), never from the OS, so a seed replays the same orders.

use crate::ids::PowerId;
use crate::orders::ast::{Order, OrderLine};
use crate::rules::legality::judge_one;
use crate::rules::war::control;
use crate::rules::war::movement::{orders_corps, orders_for};
use crate::scenario::Scenario;
use crate::state::{Location, State, UnitKey};

use super::{Rng, line};

/// Random legal military orders for `power` (naval and land).
pub fn generate(scenario: &Scenario, state: &State, power: PowerId, seed: u64) -> Vec<OrderLine> {
    let mut rng = Rng::new(seed ^ (power as u64).wrapping_mul(0xA24B_AED4_963E_E407));
    let mut out = Vec::new();
    // the EiA naval option's own orders draw from their own generator, so
    // a game without the option plays exactly as before
    let mut naval = crate::rules::war::option_naval::enabled(state)
        .then(|| Rng::new(seed ^ (power as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    if let Some(r) = naval.as_mut() {
        super::naval::standing(scenario, state, power, r, &mut out);
    }
    for s in &state.squadrons {
        if let Some(r) = naval.as_mut()
            && super::naval::squadron_order(scenario, state, power, s, r, &mut out)
        {
            continue;
        }
        squadron_order(scenario, state, power, s, &mut rng, &mut out);
    }
    for c in &state.corps {
        corps_order(scenario, state, power, c, &mut rng, &mut out);
    }
    out
}

/// A random legal order for squadron `s`, if it gets one: a blockade,
/// an attack on an enemy in reach, or a move to a neighbouring zone.
fn squadron_order(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    s: &crate::state::Squadron,
    rng: &mut Rng,
    out: &mut Vec<OrderLine>,
) {
    if !orders_for(state, power, &s.nation) {
        return;
    }
    let key = UnitKey::squadron(s.nation.clone(), s.number);
    let roll = rng.index(4);
    let here: Vec<String> = match &s.location {
        Location::Port(p) => scenario.map.province(p).map(|x| x.seas.clone()).unwrap_or_default(),
        // the off-board areas (12.2.7.1) are the naval option's generator's
        Location::Sea(z) => scenario
            .map
            .sea(z)
            .map(|x| {
                x.adjacent
                    .iter()
                    .filter(|a| scenario.map.off_board(a).is_none())
                    .cloned()
                    .collect()
            })
            .unwrap_or_default(),
    };
    if roll == 0 {
        if let Location::Sea(z) = &s.location
            && let Some(p) = scenario.map.provinces.iter().find(|p| {
                p.port
                    && p.seas.contains(z)
                    && !control::friendly(state, power, &p.id)
                    && state.provinces.get(&p.id).is_some_and(|ps| ps.controller.is_some())
            })
        {
            let o = Order::Blockade {
                squadron: key.clone(),
                port: p.id.clone(),
            };
            if judge_one(scenario, state, power, &o).is_ok() {
                out.push(line(o, format!("{key} blockade {}", p.id)));
            }
        }
        return;
    }
    if here.is_empty() || roll == 1 {
        return;
    }
    // attack an enemy in reach, if there is one
    let reach: Vec<String> = match &s.location {
        Location::Sea(z) => vec![z.clone()],
        Location::Port(_) => here.clone(),
    };
    if let Some(z) = reach.iter().find(|z| {
        judge_one(
            scenario,
            state,
            power,
            &Order::NavalAttack {
                squadron: key.clone(),
                sea: (*z).clone(),
            },
        )
        .is_ok()
    }) {
        out.push(line(
            Order::NavalAttack {
                squadron: key.clone(),
                sea: z.clone(),
            },
            format!("{key} attack {z}"),
        ));
        return;
    }
    let z = here[rng.index(here.len())].clone();
    let o = Order::NavalMove {
        squadron: key.clone(),
        path: vec![z.clone()],
        carrying: vec![],
        to_port: None,
    };
    if judge_one(scenario, state, power, &o).is_ok() {
        out.push(line(o, format!("{key} sail {z}")));
    }
}

/// A random legal order for corps `c`, if it gets one: a siege where it
/// stands, or a random walk.
fn corps_order(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    c: &crate::state::Corps,
    rng: &mut Rng,
    out: &mut Vec<OrderLine>,
) {
    if !orders_corps(state, power, c) || c.divisions.is_empty() {
        return;
    }
    let Some(loc) = c.location.clone() else { return };
    if c.arrives.is_some_and(|t| t > state.turn()) {
        return;
    }
    let key = c.key();
    let sieg = Order::Besiege {
        corps: vec![key.clone()],
        province: loc.clone(),
    };
    if judge_one(scenario, state, power, &sieg).is_ok() && rng.index(3) > 0 {
        out.push(line(sieg, format!("{key} besiege {loc}")));
        return;
    }
    if rng.index(4) == 0 {
        return;
    }
    // a random walk: first step among the legal neighbours, then
    // longer while it stays legal (each candidate checked by judge_one)
    let mv = |path: &[String]| Order::Move {
        corps: vec![key.clone()],
        commander: None,
        path: path.to_vec(),
    };
    let firsts: Vec<String> = scenario
        .map
        .land_neighbours(&loc)
        .map(str::to_string)
        .filter(|n| judge_one(scenario, state, power, &mv(&[loc.clone(), n.clone()])).is_ok())
        .collect();
    if firsts.is_empty() {
        return;
    }
    let mut path = vec![loc.clone(), firsts[rng.index(firsts.len())].clone()];
    let extra = rng.index(scenario.tables.movement.allowance.max(1) as usize);
    for _ in 0..extra {
        let cur = path[path.len() - 1].clone();
        let nb: Vec<&str> = scenario.map.land_neighbours(&cur).collect();
        if nb.is_empty() {
            break;
        }
        let mut longer = path.clone();
        longer.push(nb[rng.index(nb.len())].to_string());
        if judge_one(scenario, state, power, &mv(&longer)).is_err() {
            break;
        }
        path = longer;
    }
    out.push(line(mv(&path), format!("{key} move {}", path[1..].join(" "))));
}
