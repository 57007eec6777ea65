//! The sequence of play (1.2, 3.6, 3.7, 4.6): which phase follows which,
//! who orders in each, and the Turn Start Phase that fixes the order of
//! the Player Turns.
//!
//! Calendar: Fall 1805 first (3.6), then each year Winterphase, Spring,
//! Summer, Fall; the game ends after the Fall 1815 Build Phase (1.2):
//! 41 turns. A Combat Season is `turn-start`, one Player Turn per chit
//! (`1806-spring-france` …) and `build`; a Winterphase is one phase.
//!
//! 4.6 / 3.31 decisions (house where the seeds are silent):
//! - Chits go to every Player Country and every Controlled NPC. Allied
//!   NPCs have no chit: their units move in their ally's Player Turn.
//!   Inactive NPCs get no Player Turn at all.
//! - France, if a Player Country, may order `move first`; its turn then
//!   comes first. The other chits are drawn by a d10 per chit (purpose
//!   `turn-start/<turn>/chit/<power>`), highest first; ties re-roll among
//!   the tied (`…/chit/<power>/tie-N`), then prominence order (3.0).
//! - 4.61 Military cooperation: two powers that both order `cooperate
//!   with` each other move one right after the other (the later chit
//!   moves up behind the earlier one).

use super::outcome::Outcome;
use super::{EngineError, Roles};
use crate::dice::Dice;
use crate::ids::{PhaseId, PowerId, Season, Step, Turn};
use crate::orders::ast::Order;
use crate::rules::Kind;
use crate::rules::Why;
use crate::scenario::Scenario;
use crate::state::{Control, State};

/// 2.42: the game's dice are ten-sided.
pub const D10: u32 = 10;

/// Powers with a chit (4.6, 3.31): Player Countries and Controlled NPCs.
pub fn chit_holders(state: &State) -> Vec<PowerId> {
    PowerId::ALL
        .into_iter()
        .filter(|p| matches!(state.power(*p).control, Control::Player | Control::Controlled { .. }))
        .collect()
}

/// The Player Countries.
pub fn players(state: &State) -> Vec<PowerId> {
    PowerId::ALL
        .into_iter()
        .filter(|p| crate::rules::side::is_player_country(state, *p))
        .collect()
}

/// The phase after the open one, or `None` when the game ends (after the
/// Build Phase of the scenario's last turn, 1.2).
pub fn next_phase(scenario: &Scenario, state: &State) -> Option<PhaseId> {
    let ph = state.phase;
    let first_turn_of = |turn: Turn| PhaseId {
        turn,
        step: if turn.season == Season::Winter {
            Step::Winter
        } else {
            Step::TurnStart
        },
    };
    let step_of = |p: PowerId| PhaseId {
        turn: ph.turn,
        step: Step::PlayerTurn(p),
    };
    match ph.step {
        Step::Bid => Some(PhaseId {
            turn: scenario.start,
            step: Step::TurnStart,
        }),
        Step::TurnStart => Some(state.turn_order.first().map_or(
            PhaseId {
                turn: ph.turn,
                step: Step::Build,
            },
            |p| step_of(*p),
        )),
        Step::PlayerTurn(p) => {
            let i = state.turn_order.iter().position(|x| *x == p);
            match i.and_then(|i| state.turn_order.get(i + 1)) {
                Some(n) => Some(step_of(*n)),
                None => Some(PhaseId {
                    turn: ph.turn,
                    step: Step::Build,
                }),
            }
        }
        Step::Build => {
            if ph.turn >= scenario.end {
                None
            } else {
                Some(first_turn_of(ph.turn.next()))
            }
        }
        Step::Winter => Some(first_turn_of(ph.turn.next())),
    }
}

/// Who must and who may order in the open phase. Defaults for a power
/// that sends nothing (also in `docs/rules-coverage.md`):
/// - Turn Start: France does not opt to move first; nobody cooperates.
/// - Player Turn: no political action, no event is skipped (the event
///   roll is automatic), no movement (rules II's defaults).
/// - Build: nothing is built.
/// - Winterphase: no VP purchase, no gifts or loans, no NPC alliance
///   attempt, no change to embargo participation.
/// - Bid: a bid of 0 with no preferences.
pub fn roles(state: &State) -> Roles {
    let pcs = players(state);
    match state.phase.step {
        Step::Bid | Step::Winter | Step::Build => Roles {
            must: pcs.clone(),
            may: pcs,
        },
        Step::TurnStart => Roles {
            must: if pcs.contains(&PowerId::France) {
                vec![PowerId::France]
            } else {
                Vec::new()
            },
            may: pcs,
        },
        Step::PlayerTurn(p) => Roles {
            // The mover (or the PC running a Controlled NPC) must order;
            // everyone may answer a peace or alliance proposal (5.1, 5.2).
            must: state.ordered_by(p).into_iter().collect(),
            may: pcs,
        },
    }
}

/// 4.6 Turn Start Phase: military cooperation and the order of Player
/// Turns, written to `state.turn_order`.
pub fn turn_start(
    state: &mut State,
    orders: &super::PhaseOrders,
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    let turn = state.turn();
    let holders = chit_holders(state);
    let opted = |p: PowerId| {
        orders
            .get(&p)
            .is_some_and(|v| v.iter().any(|o| matches!(o.order, Order::MoveFirst)))
    };
    // 4.6: France may opt to move first; 11.8.2.2, 11.8.2.3 (EiA option
    // political) change who moves first with the dominant powers.
    let mut order: Vec<PowerId> = Vec::new();
    for (p, rule, why) in crate::rules::political::dominance::first_movers(state, &holders, opted) {
        let o = Outcome::new(rule, Kind::MoveFirst, why).power(p);
        out.push(if opted(p) { o.order("move first") } else { o });
        order.push(p);
    }
    // 4.6: draw the remaining chits.
    let mut rolls: Vec<(PowerId, Vec<u32>)> = Vec::new();
    let mut chit = Outcome::new("4.6", Kind::ChitDraw, "");
    for p in holders.iter().copied().filter(|p| !order.contains(p)) {
        let purpose = format!("turn-start/{turn}/chit/{p}");
        let v = dice.roll(&purpose, D10)?;
        chit = chit.die(&purpose, v);
        rolls.push((p, vec![v]));
    }
    // Re-roll ties among the tied, up to three times.
    for round in 1..=3 {
        let mut tied: Vec<PowerId> = Vec::new();
        for (p, r) in &rolls {
            if rolls.iter().filter(|(q, s)| q != p && s == r).count() > 0 {
                tied.push(*p);
            }
        }
        if tied.is_empty() {
            break;
        }
        for (p, r) in rolls.iter_mut() {
            if tied.contains(p) {
                let purpose = format!("turn-start/{turn}/chit/{p}/tie-{round}");
                let v = dice.roll(&purpose, D10)?;
                chit = chit.die(&purpose, v);
                r.push(v);
            }
        }
    }
    // Highest first; remaining ties by prominence (stable sort on ALL order).
    rolls.sort_by(|a, b| b.1.cmp(&a.1));
    order.extend(rolls.iter().map(|(p, _)| *p));
    // 4.61: cooperating pairs move one after the other.
    let coop = |a: PowerId, b: PowerId| {
        let says = |x: PowerId, y: PowerId| {
            orders.get(&x).is_some_and(|v| {
                v.iter()
                    .any(|o| matches!(o.order, Order::Cooperate { with } if with == y))
            })
        };
        says(a, b) && says(b, a) && state.relations.allied(a, b)
    };
    let mut i = 0;
    while i < order.len() {
        let a = order[i];
        if let Some(j) = (i + 2..order.len()).find(|&j| coop(a, order[j])) {
            let b = order.remove(j);
            order.insert(i + 1, b);
            out.push(
                Outcome::new(
                    "4.61",
                    Kind::Cooperation,
                    format!("{} and {} move together", a.name(), b.name()),
                )
                .power(a)
                .why("both ordered cooperation and are allied"),
            );
            i += 2;
        } else {
            i += 1;
        }
    }
    chit.summary = format!(
        "Order of Player Turns for {turn}: {}",
        order.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
    );
    for p in PowerId::ALL {
        match &state.power(p).control {
            Control::Allied { with } => {
                chit = chit.why(format!(
                    "{} is an Allied NPC: it moves in {}'s turn (3.31)",
                    p.name(),
                    with.name()
                ));
            }
            Control::Inactive => {
                chit = chit.why(format!("{} is an Inactive NPC: no Player Turn (3.31)", p.name()));
            }
            _ => {}
        }
    }
    out.push(chit);
    state.turn_order = order;
    Ok(())
}

/// 3.31, 4.6: the chits change when an NPC's status changes during a
/// Combat Season (after `diplomacy::refresh_npcs`). An NPC that became
/// Controlled and has no Player Turn this season gets one, after the last
/// chit still to move (house: the seeds do not say where its chit goes);
/// a power still to move that holds no chit any more (an NPC that went
/// back to Inactive or became Allied) loses its turn. `mover` is the
/// power whose turn is being resolved.
pub fn late_chits(state: &mut State, mover: PowerId, out: &mut Vec<Outcome>) {
    let holders = chit_holders(state);
    let here = state.turn_order.iter().position(|p| *p == mover).unwrap_or(0);
    let turn = state.turn();
    let mut order = state.turn_order.clone();
    let dropped: Vec<PowerId> = order
        .iter()
        .skip(here + 1)
        .copied()
        .filter(|p| !holders.contains(p))
        .collect();
    order.retain(|p| !dropped.contains(p));
    for p in dropped {
        out.push(
            Outcome::new(
                "4.6",
                Kind::ChitDraw,
                format!("{} loses its Player Turn of {turn}", p.name()),
            )
            .power(p)
            .why(Why::rule(
                "3.31",
                format!("{} holds no chit any more: it is no longer a Controlled NPC", p.name()),
            )),
        );
    }
    for p in holders {
        if order.contains(&p) {
            continue;
        }
        order.push(p);
        let by = match state.power(p).control {
            Control::Controlled { by } => format!(", run by {}", by.name()),
            _ => String::new(),
        };
        out.push(
            Outcome::new(
                "4.6",
                Kind::ChitDraw,
                format!("{} gets a Player Turn in {turn}{by}, after the other chits", p.name()),
            )
            .power(p)
            .why(Why::rule(
                "3.31",
                format!(
                    "{} became a Controlled NPC during the season and holds a chit now",
                    p.name()
                ),
            ))
            .why(Why::house("its chit goes after the last chit still to move")),
        );
    }
    state.turn_order = order;
}

/// 1.2: the number of turns from the scenario's start to its end.
pub fn turns_in_calendar(scenario: &Scenario) -> u32 {
    let mut t = scenario.start;
    let mut n = 1;
    while t < scenario.end {
        t = t.next();
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calendar_has_41_turns() {
        let s = Scenario::embedded("1805").unwrap();
        assert_eq!(turns_in_calendar(&s), 41);
    }
}
