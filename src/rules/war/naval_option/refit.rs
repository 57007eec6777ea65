//! 12.2.8.3 refitting hulks and 12.2.8.4 putting ships "in ordinary"
//! (EiA option `naval`), both ordered in the Mutual Build Phase: La
//! Guerre's Money and Manpower Expenditure Step (8.5) and its Naval
//! Reinforcement step (house; rules-notes §6.3).
//!
//! - `REFIT 2 HULKS IN Brest`: $5 and 1 manpower a hulk (seed 12.2.8.3,
//!   in Gold by `gold_per_dollar` and `gold_per_manpower`, house, in
//!   `tables/naval_option.toml`), in a port the power may use (its own,
//!   a minor it controls, an ally's), or in the off-board area where the
//!   hulks lie (12.2.7.3, second numbering: they "may be refitted
//!   normally"; ready at sea there). Three months is one season: the
//!   ships are ready in the next Mutual Build Phase, when they join the
//!   power's squadron in that port with fewest ships, or a new counter
//!   from the force pool (house: 5.1.2 is EiA's); with neither they wait.
//! - `CONVERT 3 SHIPS OF squadron 2`: ships of a squadron in a port the
//!   power may use become its hulks there; a counter emptied so is not
//!   scuttled: it goes back to the force pool (2.51).
//! - `CONVERT 8 NEW SHIPS IN Brest`: "New ships arriving as
//!   reinforcements may also be converted and placed in a port in the
//!   ship's home country": ships of the squadrons the power built in this
//!   phase (taken lowest number first; a counter emptied goes back to the
//!   pool) become its hulks in the named port, a port of its home country
//!   it may use. Carried out after the builds; refused then when fewer
//!   new ships were built than named.

use crate::diagnostic::Problem;
use crate::ids::{Nation, PowerId};
use crate::orders::ast::{Arg, NavalOrder};
use crate::rules::war::control::{name, squadron_to_pool};
use crate::rules::{Kind, Outcome, Rejection, Why};
use crate::scenario::Scenario;
use crate::state::{Location, Refit, Squadron, State, UnitKey};

/// 12.2.8.3: a hulk's refit costs $5 and 1 manpower point.
pub const REFIT_DOLLARS: i64 = 5;
pub const REFIT_MANPOWER: i64 = 1;

fn no(rule: &str, reason: impl Into<String>) -> Rejection {
    Rejection::new(rule, reason)
}

/// Gold for refitting `count` hulks (12.2.8.3), with why.
pub fn refit_cost(scenario: &Scenario, count: u32) -> (i64, String) {
    let t = &scenario.tables.naval_option;
    let each = REFIT_DOLLARS * t.gold_per_dollar + REFIT_MANPOWER * t.gold_per_manpower;
    let gold = each * i64::from(count);
    (
        gold,
        format!(
            "12.2.8.3: ${REFIT_DOLLARS} and {REFIT_MANPOWER} manpower a hulk = {each} Gold (tables/naval_option.toml gold_per_dollar, gold_per_manpower) x {count} = {gold} Gold"
        ),
    )
}

/// Whether a REFIT or CONVERT order may be carried out now.
pub fn check(scenario: &Scenario, state: &State, power: PowerId, order: &NavalOrder) -> Result<(), Rejection> {
    if !crate::rules::war::option_naval::enabled(state) {
        return Err(no(
            "12.2.8",
            "refitting and converting hulks belong to the EiA naval option, not in play in this game",
        ));
    }
    match order {
        NavalOrder::Refit { port, count } => check_refit(scenario, state, power, port, *count),
        NavalOrder::Convert { squadron, ships } => check_convert(scenario, state, power, squadron, *ships).map(|_| ()),
        NavalOrder::ConvertNew { port, ships } => check_convert_new(scenario, state, power, port, *ships),
        _ => Ok(()),
    }
}

fn check_refit(scenario: &Scenario, state: &State, power: PowerId, port: &str, count: u32) -> Result<(), Rejection> {
    let (rule, place) = if let Some(area) = scenario.map.sea(port).filter(|s| s.is_off_board()) {
        // 12.2.7.3 (second numbering): disabled ships left off the board
        // "remain in the West Indies as hulks; they may be refitted
        // normally": there, at the 12.2.8.3 price and delay
        ("12.2.7.3", area.name.as_str())
    } else {
        let Some(p) = scenario.map.province(port).filter(|p| p.port) else {
            return Err(Rejection::coded(
                Problem::NotAPort,
                "12.2.8.3",
                format!("'{port}' is neither a port nor an area off the board (12.2.7.3)"),
            )
            .at(Arg::Province(port.to_string())));
        };
        if !super::ports::usable(state, power, port) {
            return Err(no(
                "12.2.8.3",
                format!(
                    "{} refits only in its own ports, those of minors it controls and its allies'; not in {}",
                    power.name(),
                    p.name
                ),
            )
            .at(Arg::Province(port.to_string())));
        }
        ("12.2.8.3", p.name.as_str())
    };
    let have = state.hulks_at(port, power);
    if count == 0 || count > have {
        return Err(no(
            rule,
            format!("{} has {have} hulk(s) in {place}; {count} named", power.name()),
        )
        .at(Arg::Number(count)));
    }
    let (gold, _) = refit_cost(scenario, count);
    let ps = state.power(power);
    let left = ps.gold - ps.debt;
    if gold > left {
        return Err(Rejection::coded(
            Problem::CannotPay,
            "12.2.8.3",
            format!("the refit costs {gold} Gold; {} has {left}", power.name()),
        ));
    }
    Ok(())
}

/// 12.2.8.4: new ships go "in a port in the ship's home country": a
/// port of a home province of `power` that it may use.
fn check_convert_new(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    port: &str,
    ships: u32,
) -> Result<(), Rejection> {
    let Some(p) = scenario.map.province(port).filter(|p| p.port) else {
        return Err(
            Rejection::coded(Problem::NotAPort, "12.2.8.4", format!("'{port}' is not a port"))
                .at(Arg::Province(port.to_string())),
        );
    };
    if !(p.kind.is_home() && p.owner.major() == Some(power) && super::ports::usable(state, power, port)) {
        return Err(no(
            "12.2.8.4",
            format!(
                "new ships are placed in a port of {}'s home country that it holds; not in {}",
                power.name(),
                p.name
            ),
        )
        .at(Arg::Province(port.to_string())));
    }
    if ships == 0 {
        return Err(no("12.2.8.4", "name at least one ship").at(Arg::Number(ships)));
    }
    Ok(())
}

fn check_convert<'s>(
    scenario: &Scenario,
    state: &'s State,
    power: PowerId,
    squadron: &UnitKey,
    ships: u32,
) -> Result<&'s Squadron, Rejection> {
    let s = crate::rules::war::naval::ordered_squadron(scenario, state, power, squadron)?;
    let Location::Port(port) = &s.location else {
        return Err(Rejection::coded(
            Problem::NotThere,
            "12.2.8.4",
            format!("{} must be in port to put ships in ordinary", squadron.name(scenario)),
        )
        .at(Arg::Unit(squadron.clone())));
    };
    let owner = state.squadron_power(s).unwrap_or(power);
    if !super::ports::usable(state, owner, port) {
        return Err(no(
            "12.2.8.4",
            format!(
                "{} is neither {}'s nor an ally's port",
                name(scenario, port),
                owner.name()
            ),
        ));
    }
    let have = super::combat::ships_of(state, &scenario.tables.naval_option, squadron);
    if ships == 0 || ships > have {
        return Err(no(
            "12.2.8.4",
            format!("{} has {have} ship(s); {ships} named", squadron.name(scenario)),
        )
        .at(Arg::Number(ships)));
    }
    Ok(s)
}

/// Carry out a REFIT or CONVERT order of `power` (the Build Phase, and
/// the legality check on a projected state). `built`: the squadrons
/// built in this phase (12.2.8.4 new ships); `None` on a projection,
/// where a CONVERT of new ships is only checked.
pub fn order(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    order: &NavalOrder,
    text: &str,
    built: Option<&[UnitKey]>,
    out: &mut Vec<Outcome>,
) {
    if let Err(r) = check(scenario, state, power, order) {
        out.push(crate::rules::economy::rejected(r.rule.as_str(), power, text, &r.reason));
        return;
    }
    let o = match order {
        NavalOrder::Refit { port, count } => refit(scenario, state, power, port, *count),
        NavalOrder::Convert { squadron, ships } => convert(scenario, state, power, squadron, *ships),
        NavalOrder::ConvertNew { port, ships } => match built {
            Some(b) => convert_new(scenario, state, power, port, *ships, b),
            None => return,
        },
        _ => return,
    };
    out.push(o.order(text));
}

fn refit(scenario: &Scenario, state: &mut State, power: PowerId, port: &str, count: u32) -> Outcome {
    let (gold, why) = refit_cost(scenario, count);
    if let Some(m) = state.hulks.get_mut(port) {
        if let Some(n) = m.get_mut(power.id()) {
            *n -= count;
        }
        m.retain(|_, n| *n > 0);
    }
    state.hulks.retain(|_, m| !m.is_empty());
    state.power_mut(power).gold -= gold;
    let ready = state.turn().next();
    state.naval.refits.push(Refit {
        power,
        port: port.to_string(),
        ships: count,
        ready,
    });
    Outcome::new(
        "12.2.8.3",
        Kind::Hulks,
        format!(
            "{} refits {count} hulk(s) in {} for {gold} Gold",
            power.name(),
            name(scenario, port)
        ),
    )
    .power(power)
    .gold(power, -gold)
    .only(vec![power])
    .why(Why::rule("12.2.8.3", why.trim_start_matches("12.2.8.3: ")))
    .why(Why::rule(
        "12.2.8.3",
        format!("three months: the ships are ready in the Mutual Build Phase of {ready}"),
    ))
}

/// 12.2.8.4: `ships` of the ships `power` built this phase (`built`,
/// lowest number first) become its hulks in `port`; an emptied counter
/// goes back to the force pool.
fn convert_new(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    port: &str,
    ships: u32,
    built: &[UnitKey],
) -> Outcome {
    let t = &scenario.tables.naval_option;
    let mut new: Vec<&UnitKey> = built.iter().filter(|k| state.unit_power(k) == Some(power)).collect();
    new.sort_by_key(|k| k.number);
    let have: u32 = new.iter().map(|k| super::combat::ships_of(state, t, k)).sum();
    if ships > have {
        return Outcome::new(
            "12.2.8.4",
            Kind::OrderFailed,
            format!(
                "{} built {} squadron(s) with {have} ship(s) this phase; {ships} named",
                power.name(),
                new.len()
            ),
        )
        .power(power)
        .only(vec![power]);
    }
    let mut left = ships;
    let mut from = Vec::new();
    for k in new {
        if left == 0 {
            break;
        }
        let n = super::combat::ships_of(state, t, k);
        let take = n.min(left);
        left -= take;
        let Some(i) = state
            .squadrons
            .iter()
            .position(|s| s.nation == k.nation && s.number == k.number)
        else {
            continue;
        };
        if take == n {
            let s = state.squadrons.remove(i);
            squadron_to_pool(state, &s.nation);
            from.push(format!(
                "{take} of {} (emptied: its counter returns to the force pool)",
                k.name(scenario)
            ));
        } else {
            state.squadrons[i].ships = Some(n - take);
            from.push(format!("{take} of {} (it keeps {})", k.name(scenario), n - take));
        }
    }
    state.add_hulks(port, power, ships);
    Outcome::new(
        "12.2.8.4",
        Kind::Hulks,
        format!(
            "{} puts {ships} new ship(s) in ordinary in {}",
            power.name(),
            name(scenario, port)
        ),
    )
    .power(power)
    .why(Why::rule(
        "12.2.8.4",
        format!(
            "new ships arriving as reinforcements, placed in a port of the home country: {}",
            from.join("; ")
        ),
    ))
    .only(crate::rules::war::naval_option::report::seers_of(state, [power]))
}

fn convert(scenario: &Scenario, state: &mut State, power: PowerId, squadron: &UnitKey, ships: u32) -> Outcome {
    let t = &scenario.tables.naval_option;
    let have = super::combat::ships_of(state, t, squadron);
    let Some(i) = state
        .squadrons
        .iter()
        .position(|s| s.nation == squadron.nation && s.number == squadron.number)
    else {
        return Outcome::new(
            "12.2.8.4",
            Kind::OrderFailed,
            format!("there is no {}", squadron.name(scenario)),
        );
    };
    let Location::Port(port) = state.squadrons[i].location.clone() else {
        return Outcome::new(
            "12.2.8.4",
            Kind::OrderFailed,
            format!("{} is not in port", squadron.name(scenario)),
        );
    };
    let owner = state.unit_power(squadron).unwrap_or(power);
    state.add_hulks(&port, owner, ships);
    let mut o = Outcome::new(
        "12.2.8.4",
        Kind::Hulks,
        format!(
            "{} puts {ships} ship(s) of {} in ordinary in {}",
            owner.name(),
            squadron.name(scenario),
            name(scenario, &port)
        ),
    )
    .power(power)
    .only(crate::rules::war::naval_option::report::seers_of(state, [power, owner]));
    if ships == have {
        let s = state.squadrons.remove(i);
        squadron_to_pool(state, &s.nation);
        o = o.why(Why::rule(
            "12.2.8.4",
            format!(
                "{} is emptied: not scuttled, its counter returns to the force pool",
                squadron.name(scenario)
            ),
        ));
    } else {
        state.squadrons[i].ships = Some(have - ships);
        o = o.why(Why::rule(
            "12.2.8.4",
            format!("{} keeps {} ship(s)", squadron.name(scenario), have - ships),
        ));
    }
    o
}

/// 12.2.8.3: refits whose three months are over become ships at the
/// start of the Mutual Build Phase: they join the owner's squadron in the
/// port with fewest ships (ties: lowest number), else a counter from the
/// force pool; with neither they wait for the next phase.
pub fn complete(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    if !crate::rules::war::option_naval::enabled(state) {
        return;
    }
    let now = state.turn();
    let t = &scenario.tables.naval_option;
    let due: Vec<Refit> = state.naval.refits.iter().filter(|r| r.ready <= now).cloned().collect();
    let mut waiting: Vec<Refit> = state.naval.refits.iter().filter(|r| r.ready > now).cloned().collect();
    for r in due {
        let nation = Nation::Major(r.power);
        // 12.2.7.3: ships refitted off the board are ready at sea there
        let at = if scenario.map.sea(&r.port).is_some() {
            Location::Sea(r.port.clone())
        } else {
            Location::Port(r.port.clone())
        };
        let join = state
            .squadrons
            .iter()
            .enumerate()
            .filter(|(_, s)| s.nation == nation && s.location == at)
            .min_by_key(|(_, s)| (s.ships.unwrap_or(t.ships_per_squadron), s.number))
            .map(|(i, _)| i);
        let port = name(scenario, &r.port);
        let what = match join {
            Some(i) => {
                let s = &mut state.squadrons[i];
                let now_ships = s.ships.unwrap_or(t.ships_per_squadron) + r.ships;
                s.ships = Some(now_ships);
                format!("join {} squadron {} ({now_ships} ships)", r.power.adjective(), s.number)
            }
            None if state.power(r.power).pool.squadrons > 0 => {
                state.power_mut(r.power).pool.squadrons -= 1;
                let number = state.new_squadron(&nation, at.clone(), Some(r.ships));
                format!(
                    "form {} squadron {number} (a counter from the force pool)",
                    r.power.adjective()
                )
            }
            None => {
                out.push(
                    Outcome::new(
                        "12.2.8.3",
                        Kind::Hulks,
                        format!(
                            "{} refitted ship(s) wait in {port}: no squadron there and none in the force pool",
                            r.ships
                        ),
                    )
                    .power(r.power)
                    .only(vec![r.power]),
                );
                waiting.push(r);
                continue;
            }
        };
        out.push(
            Outcome::new(
                "12.2.8.3",
                Kind::Hulks,
                format!("{} refitted ship(s) in {port} are ready and {what}", r.ships),
            )
            .power(r.power)
            .only(vec![r.power]),
        );
    }
    state.naval.refits = waiting;
}
