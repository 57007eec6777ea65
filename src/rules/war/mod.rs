//! Entry points of the military rules (5.4 naval phase, 5.5 land phase,
//! 5.6 battles, sieges, 5.12 surrender), called by the sequence of play.
//! Implemented in the files of this folder, one concern each:
//!
//! | file | rules |
//! |---|---|
//! | `movement.rs` | 5.5 land movement, 2.13, 2.24, 3.31, 12.2.1 arrows |
//! | `arrows.rs` | 12.2.1 arrows interdicted by enemy fleets (movement and supply) |
//! | `overrun.rs` | 5.54 overrun (the 5.513 exception to stopping) |
//! | `battle.rs` | 5.6 land battles (2.41 sequence), 2.25 ghosts, 5.59 pursuit |
//! | `siege.rs` | sieges, garrisons, 2.11, 2.12, 2.23, 2.25 rebellions |
//! | `control.rs` | 4.21 control, sides, 2.51 force pool, 3.41 conquest |
//! | `naval.rs` | 5.4 naval movement, transport, interception, battle, blockade |
//! | `standing.rs` | standing orders and their defaults |
//! | `surrender.rs` | 5.12 surrender, 5.123, 5.127, 2.7 enforced peace |
//! | `option_naval.rs` | EiA optional naval rules 12.2.6.1.4.1, 12.2.9.1 (option `naval`) |
//! | `naval_option/` | EiA naval combat (12.2.6), blockade battles and running (12.2.6.2, 12.2.9), hulks |

pub mod arrows;
pub mod battle;
pub mod control;
pub mod movement;
pub mod naval;
/// EiA optional naval combat, blockades and hulks (12.2.6–12.2.9).
pub mod naval_option;
/// EiA optional naval rules (12.2.x), switched by `state.options`.
pub mod option_naval;
pub mod overrun;
pub mod siege;
pub mod standing;
pub mod surrender;

use super::{EngineError, Outcome, Rejection};
use crate::dice::Dice;
use crate::ids::PowerId;
use crate::orders::ast::{Order, OrderLine};
use crate::rules::Kind;
use crate::scenario::Scenario;
use crate::state::State;

/// Store the standing orders among `orders` (any phase; they persist).
/// Rules I should call this for every power's orders in every phase, so
/// that a standing order counts from the phase it was given in; both
/// phases below call it for the active power too. Recording the same
/// order twice reports it once.
pub fn record_standing(state: &mut State, power: PowerId, orders: &[OrderLine], out: &mut Vec<Outcome>) {
    for l in orders {
        if let Order::Standing(s) = &l.order
            && let Some(o) = standing::record(state, power, s)
        {
            out.push(o.order(&l.text));
        }
    }
}

/// 5.4: resolve the Naval Phase of `power`'s Player Turn.
pub fn naval_phase(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    orders: &[OrderLine],
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    record_standing(state, power, orders, out);
    let mut phase = naval::Phase {
        scenario,
        power,
        dice,
        battles: 0,
    };
    let mut moved = std::collections::BTreeSet::new();
    let began_mid = naval_option::west_indies::lingering(scenario, state, power); // 12.2.7.1
    // 12.2.9 (option `naval`): runs and blockade battles before anyone sails
    let held = if option_naval::enabled(state) {
        naval_option::blockade::step_orders(&mut phase, state, orders, out)?
    } else {
        Default::default()
    };
    for l in orders {
        match &l.order {
            Order::NavalMove {
                squadron,
                path,
                carrying,
                to_port,
            } => {
                if held.contains(squadron) {
                    moved.insert(squadron.clone());
                    continue;
                }
                if !moved.insert(squadron.clone()) {
                    out.push(
                        Outcome::new(
                            "5.4",
                            Kind::OrderFailed,
                            format!("{} has already moved this phase", squadron.name(scenario)),
                        )
                        .power(power)
                        .order(&l.text)
                        .only(vec![power]),
                    );
                    continue;
                }
                let sortie = naval::Sortie {
                    squadron,
                    path,
                    carrying,
                    to_port: to_port.as_deref(),
                    text: &l.text,
                };
                out.extend(naval::execute_move(&mut phase, state, &sortie)?);
            }
            Order::NavalAttack { squadron, sea } => {
                out.extend(naval::attack(&mut phase, state, squadron, sea, &l.text)?);
            }
            Order::Blockade { squadron, port } => {
                out.push(naval::blockade(scenario, state, power, squadron, port, &l.text));
            }
            _ => {}
        }
    }
    if option_naval::enabled(state) {
        naval_option::raid::raids(&mut phase, state, orders, out)?; // 12.2.6.3
    }
    if option_naval::enabled(state) {
        naval_option::blockade::upkeep(scenario, state, power, out); // 12.2.9.3
        naval_option::west_indies::end_of_naval_phase(scenario, state, power, &began_mid, out); // 12.2.7.1-.2
    }
    Ok(())
}

/// 5.5: resolve the Land Phase of `power`'s Player Turn (movement,
/// battles, sieges, garrisons), in this order: garrisons withdrawn,
/// moves, battles (in the order the armies met), sieges, garrisons left,
/// then minor powers conquered (3.41).
pub fn land_phase(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    orders: &[OrderLine],
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    record_standing(state, power, orders, out);
    for l in orders {
        if let Order::WithdrawGarrison { province, corps } = &l.order {
            out.push(siege::withdraw_garrison(
                scenario, state, power, province, corps, &l.text,
            ));
        }
    }
    let mut moves = movement::Moves::default();
    for l in orders {
        if let Order::Move { corps, commander, path } = &l.order {
            let order = movement::MoveOrder {
                corps,
                commander: commander.as_deref(),
                path,
                text: &l.text,
            };
            out.push(movement::execute(scenario, state, power, &order, &mut moves));
        }
    }
    // battles wherever the active side's armies share a province with an
    // enemy army (moves that stopped, and landings from the Naval Phase)
    let mut fields = moves.contacts.clone();
    let me = crate::ids::Nation::Major(power);
    for c in &state.corps {
        if let Some(l) = &c.location
            && state
                .corps_power(c)
                .is_some_and(|p| crate::rules::side::same_side(state, power, p))
            && !c.divisions.is_empty()
            && state
                .corps_in(l)
                .any(|x| !x.divisions.is_empty() && control::hostile(state, &me, x))
            && !fields.contains(l)
        {
            fields.push(l.clone());
        }
    }
    // 2.11: no land battle in a white-named province while a corps holds
    // it (armies landed there by sea share it without fighting)
    fields.retain(|f| scenario.map.province(f).is_none_or(|p| !p.white));
    let mut count: std::collections::BTreeMap<String, u32> = std::collections::BTreeMap::new();
    for f in fields {
        let n = count.entry(f.clone()).or_default();
        *n += 1;
        out.extend(battle::fight(scenario, state, dice, power, &f, *n, &moves.came_from)?);
    }
    // Sieges: one roll per besieged province, with every corps the
    // power's BESIEGE lines name there (splitting a stack into several
    // orders must not buy several rolls). A line whose corps
    // cannot besiege fails alone; the others still count.
    let mut sieges: Vec<(String, Vec<crate::state::UnitKey>, Vec<&str>)> = Vec::new();
    for l in orders {
        if let Order::Besiege { corps, province } = &l.order {
            if let Err(r) = siege::check(scenario, state, power, corps, province) {
                out.push(
                    Outcome::new(&r.rule, Kind::OrderFailed, r.reason)
                        .power(power)
                        .order(&l.text)
                        .only(vec![power]),
                );
                continue;
            }
            let i = match sieges.iter().position(|(p, _, _)| p == province) {
                Some(i) => i,
                None => {
                    sieges.push((province.clone(), Vec::new(), Vec::new()));
                    sieges.len() - 1
                }
            };
            let entry = &mut sieges[i];
            for k in corps {
                if !entry.1.contains(k) {
                    entry.1.push(k.clone());
                }
            }
            entry.2.push(&l.text);
        }
    }
    for (province, corps, texts) in sieges {
        out.push(siege::besiege(
            scenario,
            state,
            dice,
            power,
            &corps,
            &province,
            &texts.join("; "),
        )?);
    }
    for l in orders {
        if let Order::Garrison { corps, province } = &l.order {
            out.push(siege::garrison(scenario, state, power, corps, province, &l.text));
        }
    }
    out.extend(control::conquests(scenario, state));
    Ok(())
}

/// Legality of a naval, land or standing order before resolution (and
/// of a declaration of war under an enforced peace, 2.7), taken on its
/// own; the legality gate (`rules::legality::judge`) asks it of each order
/// of a set.
pub fn check_order(scenario: &Scenario, state: &State, power: PowerId, order: &Order) -> Result<(), Rejection> {
    match order {
        Order::Move { corps, commander, path } => {
            movement::check(scenario, state, power, corps, commander.as_deref(), path).map(|_| ())
        }
        Order::NavalMove {
            squadron,
            path,
            carrying,
            to_port,
        } => naval::check_move(scenario, state, power, squadron, path, carrying, to_port.as_deref()),
        Order::Besiege { corps, province } => siege::check(scenario, state, power, corps, province),
        Order::Garrison { corps, province } => siege::check_garrison(scenario, state, power, corps, province),
        Order::WithdrawGarrison { province, corps } => siege::check_withdraw(scenario, state, power, province, corps),
        Order::NavalAttack { squadron, sea } => naval::check_attack(scenario, state, power, squadron, sea),
        Order::Blockade { squadron, port } => naval::check_blockade(scenario, state, power, squadron, port),
        Order::Naval(n) => naval_option::check(scenario, state, power, n),
        Order::DeclareWar { on } => match surrender::declaration_barred(state, power, *on) {
            Some(r) => Err(r),
            None => Ok(()),
        },
        Order::Standing(crate::orders::ast::Standing::Retreat { provinces }) => {
            match provinces.iter().find(|p| scenario.map.province(p).is_none()) {
                Some(p) => Err(Rejection::new("5.6", format!("'{p}' is not a province"))),
                None => Ok(()),
            }
        }
        Order::Standing(crate::orders::ast::Standing::CombatOption { option, .. }) => {
            if scenario.tables.battle.option(option).is_some() {
                Ok(())
            } else {
                let known: Vec<&str> = scenario.tables.battle.options.iter().map(|o| o.id.as_str()).collect();
                Err(Rejection::new(
                    "5.6",
                    format!("no combat option '{option}' (options: {})", known.join(", ")),
                ))
            }
        }
        _ => Ok(()),
    }
}
