//! 5.5 Land movement: stacks of corps move province to province within
//! their movement allowance (Movement Allowances Table, 2.24 commanders
//! raise it), across crossing arrows (12.2.1), never off the map (2.13),
//! and stop when they enter a province with an enemy army (5.51x) unless
//! they overrun it (5.54, `overrun.rs`: the 5.513 exception).
//!
//! The 2.13 corner exceptions (Bavaria–Vienna refused, East Prussia–
//! Lithuania allowed) are adjacency data in `provinces.toml`; this file
//! only enforces adjacency. Arrows (house simplification of 12.2.1, in
//! `arrows.rs`): a type 1 arrow is closed while an enemy squadron is at
//! sea in its zone unless the mover's side controls both ends; a type 2
//! arrow is closed by any enemy squadron there.

use super::control::{entry_refused, hostile, name};
use super::overrun::overruns;
use crate::diagnostic::{Problem, or_list};
use crate::ids::{Nation, PowerId};
use crate::map::Owner;
use crate::orders::ast::Arg;
use crate::rules::Kind;
use crate::rules::Why;
use crate::rules::{Outcome, Rejection};
use crate::scenario::Scenario;
use crate::state::{Control, State, UnitKey, UnitKind};
use std::collections::{BTreeMap, BTreeSet};

/// Whether `power` gives the orders of `nation`'s units now (3.31, 3.45).
pub fn orders_for(state: &State, power: PowerId, nation: &Nation) -> bool {
    state
        .commanding_power(nation)
        .is_some_and(|c| c == power || state.ordered_by(c) == Some(power))
}

/// Whether `power` gives the orders of corps `c` now: as
/// [`orders_for`], by the power commanding the corps (3.41 keeps a minor
/// corps with the power that held it before the minor was conquered).
pub fn orders_corps(state: &State, power: PowerId, c: &crate::state::Corps) -> bool {
    state
        .corps_power(c)
        .is_some_and(|c| c == power || state.ordered_by(c) == Some(power))
}

/// A checked move: where it starts, each step and its cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub from: String,
    pub steps: Vec<(String, u32)>,
    pub allowance: u32,
    /// The power whose allowance applies (the corps' commanding power).
    pub mover: PowerId,
}

impl Plan {
    pub fn cost(&self) -> u32 {
        self.steps.iter().map(|s| s.1).sum()
    }
}

/// Divisions of the corps in `province` hostile to `power`.
pub fn hostile_divisions(state: &State, power: PowerId, province: &str) -> u32 {
    state
        .corps_in(province)
        .filter(|&c| hostile(state, &Nation::Major(power), c))
        .map(|c| c.divisions.len() as u32)
        .sum()
}

/// Check a move order against the state (5.5, 2.13, 2.24, 3.31, 12.2.1).
pub fn check(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    corps: &[UnitKey],
    commander: Option<&str>,
    path: &[String],
) -> Result<Plan, Rejection> {
    let (from, mover) = check_stack(scenario, state, power, corps)?;
    let rating = commander_rating(scenario, state, power, commander, &from)?;
    let t = &scenario.tables.movement;
    let mut allowance = t.allowance_for(mover.id(), rating);
    // 11.2.2.1, 11.3.2.1, 11.4.2, 11.5.2.1: a French kingdom's corps
    if let Some((bonus, _)) = crate::rules::political::forces::allowance_bonus(scenario, state, corps) {
        allowance += bonus;
    }
    let mut rest: &[String] = path;
    if rest.first() == Some(&from) {
        rest = &rest[1..];
    }
    if rest.is_empty() {
        return Err(Rejection::new("5.5", "the path has no province to move to"));
    }
    let stack = Stack {
        scenario,
        state,
        mover,
        corps,
        controlled_npc: matches!(state.power(mover).control, Control::Controlled { .. }),
        surrendered: state.power(mover).surrendered == Some(state.turn()),
    };
    let mut steps = Vec::new();
    let mut cur = from.clone();
    for (i, next) in rest.iter().enumerate() {
        let enemy = hostile_divisions(state, mover, next);
        // 5.54: overrunning an army costs extra points
        // a refused step is the fault of the province it enters, at this
        // writing of it (a path may come back)
        let later = rest[i + 1..].iter().filter(|&x| x == next).count();
        let at = |r: Rejection| r.at_writing(Arg::Province(next.clone()), later);
        let cost =
            stack.step_cost(&cur, next, i).map_err(at)? + super::overrun::extra_cost(scenario, state, corps, enemy);
        stack.check_entry(next, i + 1 < rest.len()).map_err(at)?;
        steps.push((next.clone(), cost));
        cur = next.clone();
    }
    let plan = Plan {
        from,
        steps,
        allowance,
        mover,
    };
    if plan.cost() > allowance {
        return Err(Rejection::new(
            "5.5",
            format!(
                "the path costs {} movement points; the allowance is {allowance} (Movement Allowances Table{})",
                plan.cost(),
                match rating {
                    Some(r) => format!(", commander rating {r}, 2.24"),
                    None => String::new(),
                }
            ),
        ));
    }
    Ok(plan)
}

/// 3.31: the refusal of an order for a unit `power` does not command.
pub(crate) fn not_yours(scenario: &Scenario, power: PowerId, unit: &UnitKey) -> Rejection {
    Rejection::coded(
        Problem::NotYourUnit,
        "3.31",
        format!("{} does not give the orders of {}", power.name(), unit.name(scenario)),
    )
    .with_help("you may order your own units and those of NPCs you run (3.31)")
    .at(Arg::Unit(unit.clone()))
}

/// 5.5 the stack: every corps named once, ordered by `power`, arrived,
/// on the map with divisions, all in one province. Returns that province
/// and the power whose allowance applies.
fn check_stack(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    corps: &[UnitKey],
) -> Result<(String, PowerId), Rejection> {
    let Some(first) = corps.first() else {
        return Err(Rejection::new("5.5", "a move names at least one corps"));
    };
    let mut from: Option<String> = None;
    let mut mover: Option<PowerId> = None;
    let mut seen = BTreeSet::new();
    for (i, k) in corps.iter().enumerate() {
        let unit = k.name(scenario);
        // each refusal here is the fault of this one corps, at this
        // writing of it (the second, when it is named twice)
        let later = corps[i + 1..].iter().filter(|&x| x == k).count();
        let refused = |r: Rejection| Err(r.at_writing(Arg::Unit(k.clone()), later));
        if k.kind != UnitKind::Corps {
            return refused(Rejection::new("5.5", format!("{unit} is not a corps")));
        }
        if !seen.insert(k) {
            return refused(Rejection::new("5.5", format!("{unit} is named twice")));
        }
        let Some(c) = state.corps(&k.nation, k.number) else {
            return refused(Rejection::new("5.5", format!("there is no {unit}")));
        };
        if !orders_corps(state, power, c) {
            return Err(not_yours(scenario, power, k));
        }
        if c.arrives.is_some_and(|t| t > state.turn()) {
            return refused(Rejection::coded(
                Problem::NotOnMap,
                "3.3",
                format!("{unit} has not arrived yet"),
            ));
        }
        let Some(loc) = &c.location else {
            return refused(Rejection::coded(
                Problem::NotOnMap,
                "5.5",
                format!("{unit} is not on the map"),
            ));
        };
        if c.divisions.is_empty() {
            return refused(Rejection::new("2.22", format!("{unit} has no divisions")));
        }
        match &from {
            None => from = Some(loc.clone()),
            Some(f) if f != loc => {
                return refused(Rejection::coded(
                    Problem::NotStacked,
                    "5.5",
                    format!(
                        "{unit} is in {}, not in {} with {}; a stack moves from one province",
                        name(scenario, loc),
                        name(scenario, f),
                        first.name(scenario)
                    ),
                ));
            }
            _ => {}
        }
        if mover.is_none() {
            mover = state.corps_power(c);
        }
    }
    Ok((from.unwrap_or_default(), mover.unwrap_or(power)))
}

/// 2.24: the commander leading the stack, if any, and his rating.
fn commander_rating(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    commander: Option<&str>,
    from: &str,
) -> Result<Option<u8>, Rejection> {
    let Some(n) = commander else {
        return Ok(None);
    };
    // each refusal here is the fault of the commander named
    let refused = |r: Rejection| Err(r.at(Arg::Commander(n.to_string())));
    let Some(cm) = state.commanders.iter().find(|c| c.name.eq_ignore_ascii_case(n)) else {
        return refused(Rejection::coded(
            Problem::UnknownCommander,
            "2.24",
            format!("there is no commander {n}"),
        ));
    };
    if !orders_for(state, power, &Nation::Major(cm.nation)) {
        return refused(Rejection::coded(
            Problem::NotYourUnit,
            "2.24",
            format!("{} does not give the orders of {n}", power.name()),
        ));
    }
    if cm.location.as_deref() != Some(from) {
        return refused(Rejection::coded(
            Problem::NotThere,
            "2.24",
            format!("{n} is not with the stack in {}", name(scenario, from)),
        ));
    }
    Ok(Some(cm.rating))
}

/// A stack on its path: what each step of [`check`] looks at.
struct Stack<'a> {
    scenario: &'a Scenario,
    state: &'a State,
    mover: PowerId,
    corps: &'a [UnitKey],
    controlled_npc: bool,
    /// 5.123: the mover surrendered this turn.
    surrendered: bool,
}

impl Stack<'_> {
    /// The movement points of the step from `cur` to `next` (step `i` of
    /// the path): across a border or a crossing arrow (12.2.1), never
    /// off the map (2.13).
    fn step_cost(&self, cur: &str, next: &str, i: usize) -> Result<u32, Rejection> {
        let (scenario, state, mover) = (self.scenario, self.state, self.mover);
        let t = &scenario.tables.movement;
        if scenario.map.province(next).is_none() {
            return Err(Rejection::new(
                "2.13",
                format!("'{next}' is not a province of the map (no off-map moves)"),
            ));
        }
        if scenario.map.adjacent(cur, next) {
            return Ok(t.province_cost);
        }
        let Some(a) = scenario.map.arrow(cur, next) else {
            let mut near: Vec<String> = scenario.map.land_neighbours(cur).map(|n| name(scenario, n)).collect();
            near.sort();
            return Err(Rejection::coded(
                Problem::NotConnected,
                "2.13",
                format!("{} is not adjacent to {}", name(scenario, next), name(scenario, cur)),
            )
            .with_help(format!("from {} one can reach {}", name(scenario, cur), or_list(&near))));
        };
        // 12.2.1 (house simplification, see the module doc)
        if super::arrows::closed(state, mover, a, super::arrows::Use::Move) {
            return Err(Rejection::new(
                "12.2.1",
                format!(
                    "the crossing arrow {}–{} is closed by an enemy squadron in {}",
                    name(scenario, cur),
                    name(scenario, next),
                    name(scenario, &a.sea)
                ),
            ));
        }
        // 12.2.1 (EiA option `naval`): to cross into enemy land a
        // corps must begin its move next to the arrow
        let enemy_land = state
            .provinces
            .get(next)
            .and_then(|ps| ps.controller.as_ref())
            .is_some_and(|n| hostile(state, &Nation::Major(mover), n));
        if super::option_naval::enabled(state) && i > 0 && enemy_land {
            return Err(Rejection::new(
                "12.2.1",
                format!(
                    "to cross the arrow into enemy {} the stack must begin its move in {}",
                    name(scenario, next),
                    name(scenario, cur)
                ),
            ));
        }
        Ok(if a.kind >= 2 {
            t.arrow_double_cost
        } else {
            t.arrow_single_cost
        })
    }

    /// Whether the stack may enter `next` (a province of the map), and
    /// pass through it when `passing` (more steps follow).
    fn check_entry(&self, next: &str, passing: bool) -> Result<(), Rejection> {
        let (scenario, state, mover) = (self.scenario, self.state, self.mover);
        let Some(p) = scenario.map.province(next) else {
            return Ok(());
        };
        if let Some((rule, why)) = entry_refused(scenario, state, mover, next) {
            return Err(Rejection::new(rule.as_str(), why));
        }
        // 3.31: a Controlled NPC's units stay in its home or controlled provinces
        if self.controlled_npc {
            let home = p.owner == Owner::Major(mover) && p.kind.is_home();
            let held = state
                .provinces
                .get(next)
                .is_some_and(|ps| ps.controller == Some(Nation::Major(mover)));
            if !home && !held {
                return Err(Rejection::new(
                    "3.31",
                    format!(
                        "{} is a Controlled NPC: its units may not leave its home or controlled provinces ({})",
                        mover.name(),
                        p.name
                    ),
                ));
            }
        }
        // 5.123: in the turn it surrenders, a power may not move into
        // provinces it does not control
        if self.surrendered && !super::control::controls(scenario, state, mover, next) {
            return Err(Rejection::new(
                "5.123",
                format!(
                    "{} surrendered this turn and does not control {}: it may not move into it",
                    mover.name(),
                    p.name
                ),
            ));
        }
        // 2.11: a corps in a white-named province (islands, Gibraltar,
        // Copenhagen) is immune to attack by land while it holds it
        if p.white && hostile_divisions(state, mover, next) > 0 {
            return Err(Rejection::new(
                "2.11",
                format!(
                    "{} is white-named: the enemy corps there cannot be attacked by land",
                    p.name
                ),
            ));
        }
        // 5.5: an enemy army stops the stack, unless it overruns it (5.54,
        // the 5.513 exception)
        if passing {
            let enemy = hostile_divisions(state, mover, next);
            if enemy > 0 && !overruns(scenario, state, self.corps, enemy) {
                return Err(Rejection::new(
                    "5.5",
                    format!("the stack would stop in {} to give battle to the army there", p.name),
                ));
            }
        }
        Ok(())
    }
}

/// What the land phase remembers about moves: corps already moved, the
/// province each came from, and provinces where a battle is due.
#[derive(Clone, Debug, Default)]
pub struct Moves {
    pub moved: BTreeSet<UnitKey>,
    pub came_from: BTreeMap<UnitKey, String>,
    pub contacts: Vec<String>,
}

/// A move order (5.5): the stack, the commander leading it, its path,
/// and the order's text.
pub struct MoveOrder<'a> {
    pub corps: &'a [UnitKey],
    pub commander: Option<&'a str>,
    pub path: &'a [String],
    pub text: &'a str,
}

/// Carry out one move order (checked again against the current state).
pub fn execute(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    order: &MoveOrder,
    moves: &mut Moves,
) -> Outcome {
    let MoveOrder {
        corps,
        commander,
        path,
        text,
    } = *order;
    if let Some(k) = corps.iter().find(|k| moves.moved.contains(k)) {
        return Outcome::new(
            "5.5",
            Kind::OrderFailed,
            format!("{} has already moved this phase", k.name(scenario)),
        )
        .power(power)
        .order(text)
        .only(vec![power]);
    }
    let plan = match check(scenario, state, power, corps, commander, path) {
        Ok(p) => p,
        Err(r) => {
            return Outcome::new(&r.rule, Kind::OrderFailed, r.reason)
                .power(power)
                .order(text)
                .only(vec![power]);
        }
    };
    let mut prev = plan.from.clone();
    let mut reached = plan.from.clone();
    let mut why = Vec::new();
    for (step, _) in &plan.steps {
        prev = reached.clone();
        reached = step.clone();
        let enemy = hostile_divisions(state, plan.mover, step);
        if enemy > 0 {
            if overruns(scenario, state, corps, enemy) {
                // 5.54: no battle; with points left the stack moves on (5.513)
                let own = corps
                    .iter()
                    .filter_map(|k| state.corps(&k.nation, k.number))
                    .map(|c| c.divisions.len() as u32)
                    .sum();
                why.extend(super::overrun::overrun(scenario, state, plan.mover, step, own));
                continue;
            }
            why.push(Why::rule(
                "5.5",
                format!("enemy army in {}: the stack stops to give battle", name(scenario, step)),
            ));
            if !moves.contacts.contains(step) {
                moves.contacts.push(step.clone());
            }
            break;
        }
    }
    for k in corps {
        if let Some(c) = state.corps_mut(&k.nation, k.number) {
            c.location = Some(reached.clone());
        }
        moves.moved.insert(k.clone());
        moves.came_from.insert(k.clone(), prev.clone());
    }
    if let Some(n) = commander
        && let Some(cm) = state.commanders.iter_mut().find(|c| c.name.eq_ignore_ascii_case(n))
    {
        cm.location = Some(reached.clone());
    }
    let names: Vec<String> = corps.iter().map(|k| k.name(scenario)).collect();
    let mut o = Outcome::new(
        "5.5",
        Kind::Move,
        format!(
            "{} moved from {} to {}",
            names.join(", "),
            name(scenario, &plan.from),
            name(scenario, &reached)
        ),
    )
    .power(power)
    .order(text)
    .why(format!(
        "cost {} of an allowance of {} movement points (tables/movement.toml)",
        plan.cost(),
        plan.allowance
    ));
    for w in why {
        o = o.why(w);
    }
    o
}
