//! Orders of the EiA naval option (`--option naval`) for autoplay: now
//! and then a standing tactical chit (12.2.6.1.1) or Nelson's closing
//! modifier (12.2.6.1.4.2), a SORTIE from a blockaded port (12.2.6.2,
//! 12.2.9.2) and a RAID on enemy ships or hulks in a port the squadron's
//! zone borders (12.2.6.3). Each order passes the legality gate before
//! it is proposed; the generator is the option's own, so games without
//! the option draw the same orders as before.

use super::Rng;
use crate::diagnostic::Span;
use crate::ids::PowerId;
use crate::orders::ast::{NavalOrder, Order, OrderLine, Situation, Standing};
use crate::rules::legality::judge_one as validate;
use crate::rules::war::movement::orders_for;
use crate::scenario::Scenario;
use crate::scenario::tables_naval::Chit;
use crate::state::{Location, Squadron, State, UnitKey};

fn line(order: Order, text: String) -> OrderLine {
    OrderLine {
        order,
        text,
        span: Span::new(0, 0, 0),
    }
}

/// One time in four, a standing order of the option.
pub fn standing(power: PowerId, rng: &mut Rng, out: &mut Vec<OrderLine>) {
    let order = match rng.index(8) {
        0 | 1 => {
            let situation = [Situation::Attacking, Situation::Defending, Situation::Any][rng.index(3)];
            let chit = Chit::ALL[rng.index(Chit::ALL.len())];
            Standing::NavalTactic { situation, chit }
        }
        2 if power == PowerId::Britain => Standing::NelsonClosing {
            minus: rng.index(3) as u8,
        },
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
        Location::Sea(z) => scenario
            .map
            .provinces
            .iter()
            .filter(|p| p.port && p.seas.contains(z))
            .map(|p| {
                Order::Naval(NavalOrder::Raid {
                    squadron: key.clone(),
                    port: p.id.clone(),
                })
            })
            .collect(),
    };
    for o in candidates {
        if validate(scenario, state, power, &o).is_ok() {
            let text = format!("{key} {}", o.kind());
            out.push(line(o, text));
            return true;
        }
    }
    false
}
