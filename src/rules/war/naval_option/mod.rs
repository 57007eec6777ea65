//! The EiA optional naval rules (seed 003, 12.2.x) beyond what
//! `option_naval` switches inside the house naval phase: the combat of
//! 12.2.6 and what builds on it. Active only with the game option `naval`.
//!
//! | file | rules |
//! |---|---|
//! | `open_sea.rs` | 12.2.6.1 open sea combat: the nine steps, tactical chits |
//! | `combat.rs` | 12.2.6.1.3–.6 rounds, morale, melee closing, 12.2.6.1.7 general chase |
//! | `nelson.rs` | 12.2.7 Nelson, 12.2.6.1.1.1 melee, 12.2.6.1.4.2 closing |
//! | `hulks.rs` | 12.2.8.2 hulks of a port that falls or is occupied |
//! | `report.rs` | the battle outcome and who sees it, paying costs |
//! | `aftermath.rs` | 12.2.6.1.6.3 political points, 12.2.6.1.9 disabled ships, hulks |
//! | `blockade.rs` | 12.2.9.1–.3 blockade running and upkeep, 12.2.6.2 blockade battles |
//! | `raid.rs` | 12.2.6.3 port raids, 12.2.8.1 hulks in a raid |
//! | `refit.rs` | 12.2.8.3 refitting hulks, 12.2.8.4 ships put in ordinary |
//! | `ports.rs` | naval distances, usable ports |
//! | `west_indies.rs` | 12.2.7.1–.3 (second numbering) the West Indies: off-board areas, upkeep, colonial trade, combat there |
//!
//! Numbers the seed does not give: `tables/naval_option.toml`.

pub mod aftermath;
pub mod blockade;
pub mod combat;
pub mod hulks;
pub mod nelson;
pub mod open_sea;
pub mod ports;
pub mod raid;
pub mod refit;
pub mod report;
pub mod west_indies;

use crate::rules::Outcome;
use crate::scenario::Scenario;
use crate::state::State;

/// 12.2.9.3 (8.5.1.2): the Money and Manpower Expenditure Step's charge
/// for fleets in blockade boxes, and 12.2.7.1–.2 the upkeep of fleets off
/// the board and Britain's lost colonial trade, in every Mutual Build
/// Phase and Winterphase (La Guerre's economic steps); nothing without
/// the option.
pub fn expenditure(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    if super::option_naval::enabled(state) {
        blockade::expenditure_step(scenario, state, out);
        west_indies::economic_step(scenario, state, out); // 12.2.7.1, 12.2.7.2
    }
}

/// The Mutual Build Phase's orders split: (those of the option, the
/// builds and the rest).
pub fn split_build_orders(
    orders: &crate::rules::PhaseOrders,
) -> (crate::rules::PhaseOrders, crate::rules::PhaseOrders) {
    let ours = |l: &crate::orders::ast::OrderLine| matches!(&l.order, crate::orders::ast::Order::Naval(n) if n.in_build_phase());
    let pick = |want: bool| {
        orders
            .iter()
            .map(|(p, ls)| (*p, ls.iter().filter(|l| ours(l) == want).cloned().collect()))
            .collect()
    };
    (pick(true), pick(false))
}

/// The squadrons on the map, by key: before the builds, to tell the
/// ones a Mutual Build Phase built (12.2.8.4 new ships).
pub fn squadron_keys(state: &State) -> Vec<crate::state::UnitKey> {
    state
        .squadrons
        .iter()
        .map(|s| crate::state::UnitKey::squadron(s.nation.clone(), s.number))
        .collect()
}

/// The Mutual Build Phase's orders of the option, after the builds:
/// 12.2.8.3 refits and 12.2.8.4 conversions (refused without it).
/// `before`: the squadrons before the builds (`squadron_keys`).
pub fn build_orders(
    scenario: &Scenario,
    state: &mut State,
    orders: &crate::rules::PhaseOrders,
    before: &[crate::state::UnitKey],
    out: &mut Vec<Outcome>,
) {
    let built: Vec<crate::state::UnitKey> = squadron_keys(state)
        .into_iter()
        .filter(|k| !before.contains(k))
        .collect();
    for (p, lines) in orders {
        for l in lines {
            if let crate::orders::ast::Order::Naval(n) = &l.order {
                refit::order(scenario, state, *p, n, &l.text, Some(&built), out);
            }
        }
    }
}

/// 12.2.8.2: after every phase, the hulks of ports that an enemy
/// occupies or that changed hands; nothing without the option.
pub fn after_phase(
    scenario: &Scenario,
    state: &mut State,
    dice: &mut dyn crate::dice::Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), crate::dice::DiceError> {
    if super::option_naval::enabled(state) {
        hulks::sweep(scenario, state, dice, out)?;
    }
    Ok(())
}

/// Legality of an order of the option (12.2.6.2, 12.2.6.3, 12.2.8.3,
/// 12.2.8.4, 12.2.9.2).
pub fn check(
    scenario: &Scenario,
    state: &State,
    power: crate::ids::PowerId,
    order: &crate::orders::ast::NavalOrder,
) -> Result<(), crate::rules::Rejection> {
    use crate::orders::ast::NavalOrder;
    match order {
        NavalOrder::Sortie { squadron } => blockade::check_sortie(scenario, state, power, squadron),
        NavalOrder::Raid { squadron, port } => raid::check(scenario, state, power, squadron, port),
        NavalOrder::Refit { .. } | NavalOrder::Convert { .. } | NavalOrder::ConvertNew { .. } => {
            refit::check(scenario, state, power, order)
        }
    }
}
