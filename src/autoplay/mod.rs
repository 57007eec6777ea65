//! Order generation for absent or simulated powers: random-but-legal
//! orders that `empereur autoplay`, `empereur balance`, the campaign tests
//! and the benches feed to the engine. Not part of the rules engine: it
//! only reads the state and proposes orders that the legality check
//! ([`crate::rules::legality::judge`]) accepts.
//!
//! | file | what |
//! |---|---|
//! | `political.rs` | political actions, builds and VP purchases |
//! | `war.rs` | military orders (naval and land) |
//! | `naval.rs` | orders of the EiA naval option |
//! | `rng.rs` | the seeded generator and the seeded dice |
//! | `balance.rs` | seeded campaigns in process, for calibration (`empereur balance`) |

pub mod balance;
pub mod naval;
pub mod political;
pub mod rng;
pub mod war;

pub use rng::{Rng, SeededDice};

use crate::ids::{PowerId, Step};
use crate::orders::ast::OrderLine;
use crate::scenario::Scenario;
use crate::state::State;

/// A generated order as an order line: no mail or file it came from, so
/// its span is empty.
fn line(order: crate::orders::ast::Order, text: String) -> OrderLine {
    OrderLine {
        order,
        text,
        span: crate::diagnostic::Span::new(0, 0, 0),
    }
}

/// Orders proposed one at a time are judged by the phase as a set, each
/// against the state the earlier ones leave: keep what the set allows, so
/// the engine refuses nothing proposed.
fn keep_what_the_set_allows(scenario: &Scenario, state: &State, power: PowerId, orders: &mut Vec<OrderLine>) {
    let set: Vec<&crate::orders::ast::Order> = orders.iter().map(|l| &l.order).collect();
    let keep: Vec<bool> = crate::rules::legality::judge(scenario, state, power, &set)
        .iter()
        .map(Result::is_ok)
        .collect();
    let mut keep = keep.into_iter();
    orders.retain(|_| keep.next().unwrap_or(false));
}

/// Every generated order of `power` for the open phase: political,
/// economic and build orders, and military ones.
pub fn generate(scenario: &Scenario, state: &State, power: PowerId, seed: u64) -> Vec<OrderLine> {
    let mut orders = political::generate(scenario, state, power, seed);
    // Military orders belong to the Player Turn of the power they give
    // orders for (5.4, 5.5): its own, or an NPC it runs (3.31).
    if let Step::PlayerTurn(mover) = state.phase.step
        && state.ordered_by(mover) == Some(power)
    {
        orders.extend(war::generate(scenario, state, power, seed.rotate_left(17)));
        // Each military order was proposed alone; the phase judges the set.
        keep_what_the_set_allows(scenario, state, power, &mut orders);
    }
    // Reports quote an order's text: write it as a player would.
    for l in &mut orders {
        l.text = crate::orders::text::normalise(scenario, &l.order);
    }
    orders
}
