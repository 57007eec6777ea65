//! EiA optional political combinations (seed 004, 11.x), switched on by
//! the game option `political` (`state.options`).
//!
//! - The kingdoms, combinations of minor countries and provinces that a
//!   major power declares in the New Political Combinations Step of the
//!   Winterphase (house: after the Victory Point Collection Step, before
//!   purchases): Poland (11.1), Italy (11.2), Westphalia (11.3), Bavaria
//!   (11.4), the Confederation of the Rhine (11.5), the Ottoman Empire
//!   (11.6) and the Two Sicilies (11.7). One concern per file:
//!   `creation` (11.x.1), `kingdoms` (what they share, political points),
//!   `poland` and `bavaria` (their own conquest rules), `existence` (the
//!   others' conquest and growth), `ceding` (11.x.4 and peace terms),
//!   `treasury` (11.x.2 money, 11.6.2.2 tribute), `forces` (11.x.2.1
//!   movement, 11.6.2.1 morale), `garrisons` (the kingdoms' garrisons,
//!   11.1.2, 11.2.2, 11.3.2.3, 11.4.2, 11.5.2.3, 11.6.2), `two_sicilies` (11.7).
//! - `dominance`: alternate dominant powers (11.8).
//! - `peace`: political restrictions on peace (11.9).
//!
//! EiA ideas La Guerre lacks (political points, civil disorder, morale
//! levels) are mapped through `tables/political.toml`, each row with its
//! provenance; `docs/rules-coverage.md` says what was mapped and why.

pub mod bavaria;
pub mod ceding;
pub mod creation;
pub mod dominance;
pub mod existence;
pub mod forces;
pub mod garrisons;
pub mod kingdoms;
pub mod peace;
pub mod poland;
pub mod treasury;
pub mod two_sicilies;

use crate::ids::PowerId;
use crate::orders::ast::{Order, PoliticalOrder};
use crate::rules::economy::rejected;
use crate::rules::{Outcome, PhaseOrders, Rejection};
use crate::scenario::Scenario;
use crate::state::State;

/// The option id in `game.toml` / `state.options`.
pub const ID: &str = "political";

pub fn enabled(state: &State) -> bool {
    state.options.contains(ID)
}

/// Whether `power` may give a political order now (the legality gate
/// and the engine ask the same question).
pub fn check(scenario: &Scenario, state: &State, power: PowerId, order: &PoliticalOrder) -> Result<(), Rejection> {
    if !enabled(state) {
        return Err(Rejection::new(
            "11",
            "kingdoms are created, ceded and dissolved only with the EiA political option (--option political)",
        ));
    }
    let id = match order {
        PoliticalOrder::Create { kingdom, .. }
        | PoliticalOrder::Add { kingdom, .. }
        | PoliticalOrder::Cede { kingdom, .. }
        | PoliticalOrder::Accept { kingdom, .. }
        | PoliticalOrder::Refuse { kingdom, .. }
        | PoliticalOrder::Dissolve { kingdom } => kingdom,
        PoliticalOrder::Improve { leader } => return dominance::check_improve(scenario, state, power, leader),
    };
    let Some(def) = scenario.tables.political.kingdom(id) else {
        return Err(Rejection::new(
            "11",
            format!("no kingdom '{id}' in tables/political.toml"),
        ));
    };
    match order {
        PoliticalOrder::Create { provinces, .. } => creation::check(scenario, state, power, def, provinces).map(|_| ()),
        PoliticalOrder::Add { provinces, .. } => creation::check_add(scenario, state, power, def, provinces),
        PoliticalOrder::Cede { to, .. } => ceding::check(scenario, state, power, def, *to),
        PoliticalOrder::Accept { from, .. } | PoliticalOrder::Refuse { from, .. } => {
            ceding::check_answer(state, power, def, *from)
        }
        PoliticalOrder::Dissolve { .. } => ceding::check_dissolve(state, power, def),
        PoliticalOrder::Improve { .. } => Ok(()),
    }
}

/// Carry out one political order of `power` (refused with the reason
/// [`check`] gives), alone: a `CEDE` finds no answer (the order checker's
/// projection).
pub fn order(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    order: &PoliticalOrder,
    text: &str,
    out: &mut Vec<Outcome>,
) {
    answered_order(scenario, state, power, order, text, None, out);
}

/// Carry out one political order of `power`; a `CEDE` reads the
/// receiver's answer among `all` (11.1.4, 11.4.4).
fn answered_order(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    order: &PoliticalOrder,
    text: &str,
    all: Option<&PhaseOrders>,
    out: &mut Vec<Outcome>,
) {
    if let Err(r) = check(scenario, state, power, order) {
        out.push(rejected(r.rule.as_str(), power, text, &r.reason));
        return;
    }
    let id = match order {
        PoliticalOrder::Create { kingdom, .. }
        | PoliticalOrder::Add { kingdom, .. }
        | PoliticalOrder::Cede { kingdom, .. }
        | PoliticalOrder::Dissolve { kingdom } => kingdom,
        // 11.8.2.5: read by `dominance::political_step`, later in the step
        PoliticalOrder::Improve { .. } => return,
        // 11.1.4, 11.4.4: read by the CEDE they answer
        PoliticalOrder::Accept { .. } | PoliticalOrder::Refuse { .. } => return,
    };
    let Some(def) = scenario.tables.political.kingdom(id).cloned() else {
        return;
    };
    match order {
        PoliticalOrder::Create { provinces, .. } => {
            if let Ok(parts) = creation::check(scenario, state, power, &def, provinces) {
                let o = kingdoms::declare(scenario, state, power, &def, parts, text);
                if def.id == poland::ID {
                    // 11.1.1.2: the creator takes the Polish loyalty marker
                    state.political.polish_loyalty = Some(power);
                }
                out.push(o);
            }
        }
        PoliticalOrder::Add { provinces, .. } => {
            if let Some(k) = state.political.kingdoms.get_mut(&def.id) {
                k.components.extend(provinces.iter().cloned());
            }
            out.push(
                Outcome::new(
                    "11.1.1.1",
                    crate::rules::Kind::KingdomChanged,
                    format!(
                        "{} adds {} to Poland",
                        power.name(),
                        kingdoms::names(scenario, provinces)
                    ),
                )
                .power(power)
                .order(text),
            );
        }
        PoliticalOrder::Cede { to, .. } => {
            let answer = ceding::answer(state, all, power, &def, *to);
            if answer == ceding::Answer::Accepted {
                ceding::cede_kingdom(scenario, state, power, &def, *to, text, out);
            } else {
                out.push(ceding::not_accepted(power, &def, *to, answer, text));
            }
        }
        PoliticalOrder::Dissolve { .. } => ceding::dissolve(scenario, state, power, &def, text, out),
        PoliticalOrder::Improve { .. } | PoliticalOrder::Accept { .. } | PoliticalOrder::Refuse { .. } => {}
    }
}

/// The New Political Combinations Step (Winterphase): territory that must
/// join its kingdom joins, then the powers' orders, then the kingdoms'
/// standing is settled.
pub fn combinations_step(scenario: &Scenario, state: &mut State, orders: &PhaseOrders, out: &mut Vec<Outcome>) {
    if !enabled(state) {
        return;
    }
    for id in existence::KINGDOMS {
        if let Some(def) = scenario.tables.political.kingdom(id) {
            existence::must_add(scenario, state, def, out);
        }
    }
    // answers to cessions first: checked against the kingdoms as the step
    // opens, before the cessions they answer move them
    let is_answer = |o: &PoliticalOrder| matches!(o, PoliticalOrder::Accept { .. } | PoliticalOrder::Refuse { .. });
    for answers in [true, false] {
        for (p, lines) in orders {
            for l in lines {
                if let Order::Political(o) = &l.order
                    && is_answer(o) == answers
                {
                    answered_order(scenario, state, *p, o, &l.text, Some(orders), out);
                }
            }
        }
    }
    after_phase(scenario, state, out);
}

/// After every phase: accesses that end (11.9.2.2), conquests and the
/// kingdoms' existence (11.1.3, 11.2.3, 11.3.3, 11.4.3, 11.5.3, 11.6.3,
/// 11.7).
pub fn after_phase(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    if !enabled(state) {
        return;
    }
    // 11.9.2.2 C.5: an access lasts a house number of seasons
    peace::expire_access(scenario, state, out);
    let t = &scenario.tables.political;
    if let Some(def) = t.kingdom(poland::ID) {
        poland::check(scenario, state, def, out);
    }
    if let Some(def) = t.kingdom(bavaria::ID) {
        bavaria::check(scenario, state, def, out);
    }
    for id in existence::KINGDOMS {
        if let Some(def) = t.kingdom(id) {
            existence::check(scenario, state, def, out);
        }
    }
    if let Some(def) = t.kingdom(two_sicilies::ID) {
        two_sicilies::check(scenario, state, def, out);
    }
}
