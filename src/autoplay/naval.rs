//! Orders of the EiA naval option (`--option naval`) for autoplay: now
//! and then a standing tactical chit (12.2.6.1.1) or Nelson's closing
//! modifier (12.2.6.1.4.2), a SORTIE from a blockaded port (12.2.6.2,
//! 12.2.9.2) and a RAID on enemy ships or hulks in a port the squadron's
//! zone borders (12.2.6.3), a voyage towards or back from the West Indies
//! (12.2.7.1, second numbering), an ATTACK off the board (12.2.7.3), and
//! in the Mutual Build Phase a REFIT of hulks (12.2.8.3) or a CONVERT of
//! ships (12.2.8.4). Each order passes the legality gate before
//! it is proposed; the generator is the option's own, so games without
//! the option draw the same orders as before.

use super::{Rng, line};
use crate::ids::PowerId;
use crate::orders::ast::{NavalOrder, Order, OrderLine, Situation, Standing};
use crate::rules::legality::judge_one;
use crate::rules::war::movement::orders_for;
use crate::scenario::Scenario;
use crate::scenario::tables_naval::Chit;
use crate::state::{Location, Squadron, State, UnitKey};

/// Now and then a standing order of the option: a tactical chit
/// (12.2.6.1.1), Nelson's closing modifier (12.2.6.1.4.2), the general
/// chase (12.2.6.1.7), what to do after a victory or a battle without a
/// victor (12.2.6.1.8), evasion off the board (12.2.7.3), the port for
/// disabled ships (12.2.6.1.9.1) or port access for another power
/// (12.2.9.3, 12.2.6.3.1).
pub fn standing(scenario: &Scenario, state: &State, power: PowerId, rng: &mut Rng, out: &mut Vec<OrderLine>) {
    use crate::state::naval_standing::AfterBattle;
    let order = match rng.index(8) {
        0 | 1 => {
            let situation = [Situation::Attacking, Situation::Defending, Situation::Any][rng.index(3)];
            let chit = Chit::ALL[rng.index(Chit::ALL.len())];
            Standing::NavalTactic { situation, chit }
        }
        2 if power == PowerId::Britain => Standing::NelsonClosing {
            minus: rng.index(3) as u8,
        },
        3 => Standing::NavalChase { on: rng.index(2) == 0 },
        4 => Standing::NavalAfter {
            victory: true,
            then: [AfterBattle::Remain, AfterBattle::Blockade, AfterBattle::Port][rng.index(3)],
        },
        5 => Standing::NavalAfter {
            victory: false,
            then: [AfterBattle::Remain, AfterBattle::Port][rng.index(2)],
        },
        6 => Standing::NavalEvade { on: rng.index(2) == 0 },
        7 if rng.index(2) == 0 => {
            // a port of its own, or back to the nearest
            let own: Vec<&str> = scenario
                .map
                .provinces
                .iter()
                .filter(|p| p.port && crate::rules::war::naval_option::ports::usable(state, power, &p.id))
                .map(|p| p.id.as_str())
                .collect();
            match own.len() {
                0 => Standing::DisabledTo { ports: Vec::new() },
                n => Standing::DisabledTo {
                    ports: vec![own[rng.index(n)].to_string()],
                },
            }
        }
        7 => {
            let others: Vec<PowerId> = PowerId::ALL.into_iter().filter(|p| *p != power).collect();
            Standing::PortAccess {
                to: others[rng.index(others.len())],
                open: rng.index(2) == 0,
            }
        }
        _ => return,
    };
    out.push(line(Order::Standing(order), format!("{} standing naval", power.id())));
}

/// A SORTIE or a RAID for squadron `s` when one is legal and the die says
/// so; true when an order was added (the squadron then gets no other).
pub fn squadron_order(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    s: &Squadron,
    rng: &mut Rng,
    out: &mut Vec<OrderLine>,
) -> bool {
    if !orders_for(state, power, &s.nation) || rng.index(3) != 0 {
        return false;
    }
    let key = UnitKey::squadron(s.nation.clone(), s.number);
    let candidates: Vec<Order> = match &s.location {
        Location::Port(_) => vec![Order::Naval(NavalOrder::Sortie { squadron: key.clone() })],
        Location::Sea(z) => {
            let mut c = off_board(scenario, z, &key, rng);
            c.extend(
                scenario
                    .map
                    .provinces
                    .iter()
                    .filter(|p| p.port && p.seas.contains(z))
                    .map(|p| {
                        Order::Naval(NavalOrder::Raid {
                            squadron: key.clone(),
                            port: p.id.clone(),
                        })
                    }),
            );
            c
        }
    };
    for o in candidates {
        if judge_one(scenario, state, power, &o).is_ok() {
            let text = format!("{key} {}", o.kind());
            out.push(line(o, text));
            return true;
        }
    }
    false
}

/// 12.2.7.1, 12.2.7.3: from a zone next to the Canaries or off the board,
/// an ATTACK on the enemies there, else one step of the voyage: out to
/// the Canaries, on to the Mid-Atlantic and the West Indies, or back.
fn off_board(scenario: &Scenario, z: &str, key: &UnitKey, rng: &mut Rng) -> Vec<Order> {
    let Some(sea) = scenario.map.sea(z) else {
        return Vec::new();
    };
    let mut steps: Vec<&String> = sea
        .adjacent
        .iter()
        .filter(|a| sea.is_off_board() || scenario.map.off_board(a).is_some())
        .collect();
    if steps.is_empty() {
        return Vec::new();
    }
    let first = rng.index(steps.len());
    steps.rotate_left(first);
    let mut out = Vec::new();
    if sea.is_off_board() {
        out.push(Order::NavalAttack {
            squadron: key.clone(),
            sea: z.to_string(),
        });
    }
    out.extend(steps.into_iter().map(|a| Order::NavalMove {
        squadron: key.clone(),
        path: vec![a.clone()],
        carrying: Vec::new(),
        to_port: None,
    }));
    out
}

/// Mutual Build Phase orders of the option for `power` (12.2.8.3-4): now
/// and then a REFIT of its hulks in a port, or a CONVERT of one ship of a
/// squadron in port. Only legal orders are proposed; the caller judges the
/// whole set (Gold). Nothing without the option, so other games draw the
/// same orders as before.
pub fn build_orders(scenario: &Scenario, state: &State, power: PowerId, seed: u64, out: &mut Vec<OrderLine>) {
    if !crate::rules::war::option_naval::enabled(state) {
        return;
    }
    let mut rng = Rng::new(seed ^ (power as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
    let mut candidates: Vec<Order> = state
        .hulks
        .iter()
        .filter_map(|(port, by)| by.get(power.id()).map(|n| (port, *n)))
        .filter(|(_, n)| *n > 0)
        .map(|(port, n)| {
            Order::Naval(NavalOrder::Refit {
                port: port.clone(),
                count: n.min(2),
            })
        })
        .collect();
    if rng.index(10) == 0 {
        candidates.extend(
            state
                .squadrons
                .iter()
                .filter(|s| matches!(s.location, Location::Port(_)) && orders_for(state, power, &s.nation))
                .map(|s| {
                    Order::Naval(NavalOrder::Convert {
                        squadron: UnitKey::squadron(s.nation.clone(), s.number),
                        ships: 1,
                    })
                }),
        );
    }
    for o in candidates {
        if rng.index(2) == 0 && judge_one(scenario, state, power, &o).is_ok() {
            let text = o.kind().to_string();
            out.push(line(o, text));
        }
    }
}
