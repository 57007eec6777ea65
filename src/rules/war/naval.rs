//! 5.4 Naval Phase: squadrons move sea zone to sea zone within their
//! allowance, carry corps (transport capacity), may be intercepted (Naval
//! Location/Interception table; standing order `intercept`), fight naval
//! battles (Naval Combat table) and blockade ports.
//!
//! House model (rules-notes §6.2), every number in `tables/naval.toml`:
//! interception on a die of at least the target, less one per extra
//! intercepting squadron and a nationality modifier; combat die +
//! squadrons + nationality, the loser loses one squadron per
//! `points_per_loss` of difference (at least one), a tie is inconclusive.
//! A squadron sunk with corps aboard takes them down (their divisions go
//! to the pool, 2.51); an intercepted transport that is not sunk stops at
//! sea and its corps stay where they embarked. Leaving a blockaded port
//! needs a blockade-running die (after 12.2.9; with the EiA option
//! `naval_option::blockade` rolls it instead). Dice: `intercept/<sea>/
//! <squadron>/<interceptor>`, `naval-battle/<sea>/<n>/<side>`,
//! `blockade-run/<port>/<squadron>`.

use super::control::{friendly, hostile, name, squadron_to_pool, to_pool};
use super::movement::orders_corps;
use super::naval_option::combat::Ending;
use super::naval_option::open_sea;
use super::standing;
use crate::diagnostic::Problem;
use crate::dice::{Dice, DiceError};
use crate::ids::{Nation, PowerId};
use crate::orders::ast::Arg;
use crate::rules::Kind;
use crate::rules::Why;
use crate::rules::{Outcome, Rejection};
use crate::scenario::Scenario;
use crate::state::{Location, Squadron, State, UnitKey, UnitKind};
use std::collections::{BTreeMap, BTreeSet};

fn rej(rule: &str, reason: impl Into<String>) -> Rejection {
    Rejection::new(rule, reason)
}

fn skey(n: &Nation, num: u32) -> String {
    format!("{n}-{num}")
}

/// The zones a squadron must enter, after dropping its own zone.
fn route<'a>(state_loc: &Location, path: &'a [String]) -> &'a [String] {
    match state_loc {
        Location::Sea(z) if path.first() == Some(z) => &path[1..],
        _ => path,
    }
}

/// The squadron a naval order names, if it exists (5.4) and `power` gives
/// its orders (3.31): the first check of every naval order.
pub(crate) fn ordered_squadron<'a>(
    scenario: &Scenario,
    state: &'a State,
    power: PowerId,
    squadron: &UnitKey,
) -> Result<&'a Squadron, Rejection> {
    let Some(s) = state.squadron(&squadron.nation, squadron.number) else {
        return Err(rej("5.4", format!("there is no {}", squadron.name(scenario))).at(Arg::Unit(squadron.clone())));
    };
    // 11.7.1: a held squadron takes its holder's orders
    let commander = state.squadron_power(s);
    if !commander.is_some_and(|c| c == power || state.ordered_by(c) == Some(power)) {
        return Err(super::movement::not_yours(scenario, power, squadron));
    }
    Ok(s)
}

/// Check a naval move (5.4): squadron, path, allowance, transport.
pub fn check_move(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    squadron: &UnitKey,
    path: &[String],
    carrying: &[UnitKey],
    to_port: Option<&str>,
) -> Result<(), Rejection> {
    if squadron.kind != UnitKind::Squadron {
        return Err(rej("5.4", format!("{} is not a squadron", squadron.name(scenario))));
    }
    let s = ordered_squadron(scenario, state, power, squadron)?;
    let mover = state.squadron_power(s).unwrap_or(power);
    let t = &scenario.tables.naval;
    let zones = route(&s.location, path);
    let allowance = t.allowance_for(mover.id());
    if zones.len() as u32 > allowance {
        return Err(rej(
            "5.4",
            format!(
                "{} sea zones is more than the allowance of {allowance} (tables/naval.toml)",
                zones.len()
            ),
        ));
    }
    // 12.2.7.1: the areas off the board
    super::naval_option::west_indies::check_path(scenario, state, s, zones, to_port)?;
    let mut seen = std::collections::BTreeSet::new();
    let mut cur = s.location.clone();
    for (i, z) in zones.iter().enumerate() {
        // house: each zone once a phase (its interception die is unique);
        // the refusal is the fault of the second entry
        if !seen.insert(z) {
            let later = zones[i + 1..].iter().filter(|&x| x == z).count();
            return Err(rej("5.4", format!("the path enters {} twice", name(scenario, z)))
                .at_writing(Arg::Sea(z.clone()), later));
        }
        if scenario.map.sea(z).is_none() {
            return Err(rej("5.4", format!("'{z}' is not a sea zone")));
        }
        let ok = match &cur {
            Location::Port(p) => scenario.map.province(p).is_some_and(|x| x.seas.contains(z)),
            Location::Sea(c) => scenario.map.seas_adjacent(c, z) || scenario.map.seas_adjacent(z, c),
        };
        if !ok {
            return Err(Rejection::coded(
                Problem::NotConnected,
                "5.4",
                format!(
                    "{} cannot be reached from {}",
                    name(scenario, z),
                    loc_name(scenario, &cur)
                ),
            )
            .at(Arg::Sea(z.clone())));
        }
        cur = Location::Sea(z.clone());
    }
    if let Some(p) = to_port {
        let Some(pr) = scenario.map.province(p) else {
            return Err(rej("5.4", format!("'{p}' is not a province")));
        };
        let last = match &cur {
            Location::Sea(z) => z.clone(),
            Location::Port(_) => return Err(rej("5.4", "the squadron must put to sea before entering a port")),
        };
        if !pr.seas.contains(&last) {
            return Err(Rejection::coded(
                Problem::NotConnected,
                "5.4",
                format!("{} does not border {}", pr.name, name(scenario, &last)),
            )
            .at(Arg::Province(p.to_string())));
        }
        if !carrying.is_empty()
            && let Some((rule, why)) = super::control::entry_refused(scenario, state, mover, p)
        {
            return Err(rej(&rule, why).at(Arg::Province(p.to_string())));
        }
    }
    if !carrying.is_empty() {
        let Location::Port(embark) = &s.location else {
            return Err(rej("5.4", "a squadron takes corps aboard only in port"));
        };
        if to_port.is_none() {
            return Err(rej(
                "5.4",
                "corps carried by sea must land: name the province to land in",
            ));
        }
        let cap = t.corps_per_squadron as usize;
        if carrying.len() > cap {
            return Err(rej(
                "5.4",
                format!(
                    "a squadron carries at most {cap} corps (tables/naval.toml); {} named",
                    carrying.len()
                ),
            ));
        }
        for k in carrying {
            let Some(c) = state.corps(&k.nation, k.number) else {
                return Err(rej("5.4", format!("there is no {}", k.name(scenario))).at(Arg::Unit(k.clone())));
            };
            if !orders_corps(state, power, c) {
                return Err(super::movement::not_yours(scenario, power, k));
            }
            if c.location.as_deref() != Some(embark.as_str()) {
                return Err(Rejection::coded(
                    Problem::NotThere,
                    "5.4",
                    format!(
                        "{} is not in {} with the squadron",
                        k.name(scenario),
                        name(scenario, embark)
                    ),
                )
                .at(Arg::Unit(k.clone())));
            }
        }
    }
    Ok(())
}

fn loc_name(scenario: &Scenario, l: &Location) -> String {
    match l {
        Location::Port(p) | Location::Sea(p) => name(scenario, p),
    }
}

/// Nationality modifier of a table map.
fn nat_mod(m: &BTreeMap<String, i32>, p: Option<PowerId>) -> i32 {
    p.and_then(|p| m.get(p.id()).copied()).unwrap_or(0)
}

/// A naval battle in `sea` between squadrons `a` (the moving side) and
/// `b` on the house Naval Combat table (without the EiA option; with it,
/// `naval_option::open_sea`). Returns the outcome and whether side `a`
/// won.
pub fn battle(
    scenario: &Scenario,
    state: &mut State,
    dice: &mut dyn Dice,
    sea: &str,
    n: u32,
    a: &[UnitKey],
    b: &[UnitKey],
) -> Result<(Outcome, Option<bool>), DiceError> {
    let t = &scenario.tables.naval;
    let pa = a.first().and_then(|k| state.unit_power(k));
    let pb = b.first().and_then(|k| state.unit_power(k));
    let mut seers: BTreeSet<PowerId> = [pa, pb].into_iter().flatten().collect();
    for p in seers.clone() {
        if let Some(o) = state.ordered_by(p) {
            seers.insert(o);
        }
    }
    let side_name = |p: Option<PowerId>, k: &[UnitKey]| {
        p.map(|p| p.name().to_string())
            .unwrap_or_else(|| k.first().map(|k| k.nation.to_string()).unwrap_or_default())
    };
    let (an, bn) = (side_name(pa, a), side_name(pb, b));
    let mut o = Outcome::new("5.4", Kind::NavalBattle, String::new())
        .only(seers.into_iter().collect())
        .at(sea);
    if let Some(p) = pa {
        o = o.power(p);
    }
    let mut totals = [0i32; 2];
    for (i, (keys, p, side)) in [(a, pa, "attacker"), (b, pb, "defender")].into_iter().enumerate() {
        let purpose = format!("naval-battle/{sea}/{n}/{side}");
        let d = dice.roll(&purpose, t.die)?;
        o = o.die(&purpose, d);
        let sq = keys.len() as i32 * t.per_squadron;
        let nm = nat_mod(&t.combat_nationality, p);
        // 11.8.2.2 (EiA option political): dominance changes the modifier
        let dominance = crate::rules::political::dominance::naval_adjustment(state, p, nm);
        let nm = nm + dominance;
        totals[i] = d as i32 + sq + nm;
        o = o.why(format!(
            "{side} {}: {} squadron(s); die {d} {sq:+} squadrons {nm:+} nationality{} = {}",
            side_name(p, keys),
            keys.len(),
            if dominance != 0 {
                format!(" (changed by {dominance:+}, dominant status, 11.8.2.2)")
            } else {
                String::new()
            },
            totals[i]
        ));
    }
    let diff = totals[0] - totals[1];
    if diff == 0 {
        o.summary = format!(
            "Naval battle in {}: {an} and {bn} part without result",
            name(scenario, sea)
        );
        return Ok((o, None));
    }
    let (loser, a_won) = if diff > 0 { (b, true) } else { (a, false) };
    let losses = ((diff.unsigned_abs()) / t.points_per_loss.max(1)).max(1) as usize;
    let mut sunk = Vec::new();
    for k in loser.iter().take(losses) {
        sink(state, k);
        sunk.push(k.name(scenario));
    }
    o = o.why(format!(
        "difference {} -> {} squadron(s) lost (1 per {} points, at least 1): {}",
        diff.abs(),
        sunk.len(),
        t.points_per_loss,
        sunk.join(", ")
    ));
    // the beaten survivors make for a friendly port on the zone, if any
    for k in loser.iter().skip(losses) {
        let Some(p) = state.unit_power(k) else {
            continue;
        };
        let port = scenario
            .map
            .provinces
            .iter()
            .find(|x| x.port && x.seas.iter().any(|z| z == sea) && friendly(state, p, &x.id))
            .map(|x| x.id.clone());
        if let (Some(port), Some(s)) = (port, state.squadron_mut(&k.nation, k.number)) {
            s.location = Location::Port(port.clone());
            s.blockading = None;
            o = o.why(format!("{} retires to {}", k.name(scenario), name(scenario, &port)));
        }
    }
    let (w, l) = if a_won { (&an, &bn) } else { (&bn, &an) };
    o.summary = format!("Naval battle in {}: {w} defeats {l}", name(scenario, sea));
    Ok((o, Some(a_won)))
}

fn sink(state: &mut State, k: &UnitKey) {
    if let Some(pos) = state
        .squadrons
        .iter()
        .position(|s| s.nation == k.nation && s.number == k.number)
    {
        let s = state.squadrons.remove(pos);
        squadron_to_pool(state, &s.nation);
    }
}

/// A power's Naval Phase as its orders are carried out: the dice and the
/// naval battles fought so far (their number names each battle's dice).
pub struct Phase<'a> {
    pub scenario: &'a Scenario,
    pub power: PowerId,
    pub dice: &'a mut dyn Dice,
    pub battles: u32,
}

/// A naval move order (5.4): the squadron, its path of sea zones, the
/// corps it carries and the port it ends in, with the order's text.
pub struct Sortie<'a> {
    pub squadron: &'a UnitKey,
    pub path: &'a [String],
    pub carrying: &'a [UnitKey],
    pub to_port: Option<&'a str>,
    pub text: &'a str,
}

/// How a squadron's voyage through the zones of its route ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Voyage {
    /// Reached the end of its route.
    Sailed,
    /// Intercepted and not victorious: stays at sea where it was caught.
    Stopped,
    /// Sunk in a naval battle.
    Sunk,
}

/// The squadron under way: who commands it and the key its dice name.
struct Under {
    me: Squadron,
    mover: PowerId,
    sk: String,
}

/// Carry out a naval move, with blockade running and interception.
pub fn execute_move(ph: &mut Phase, state: &mut State, order: &Sortie) -> Result<Vec<Outcome>, DiceError> {
    let (scenario, power) = (ph.scenario, ph.power);
    let squadron = order.squadron;
    if let Err(r) = check_move(
        scenario,
        state,
        power,
        squadron,
        order.path,
        order.carrying,
        order.to_port,
    ) {
        return Ok(vec![
            Outcome::new(&r.rule, Kind::OrderFailed, r.reason)
                .power(power)
                .order(order.text)
                .only(vec![power]),
        ]);
    }
    let mut out = Vec::new();
    let Some(s) = state.squadron(&squadron.nation, squadron.number).cloned() else {
        return Ok(out);
    };
    let under = Under {
        mover: state.squadron_power(&s).unwrap_or(power),
        sk: skey(&squadron.nation, squadron.number),
        me: s.clone(),
    };
    if let Location::Port(port) = &s.location
        && let Some(o) = run_blockade(ph, state, order, &under, port)?
    {
        let ok = o.kind != Kind::OrderFailed;
        out.push(o);
        if !ok {
            return Ok(out);
        }
    }
    let zones: Vec<String> = route(&s.location, order.path).to_vec();
    let mut voyage = Voyage::Sailed;
    let mut reached = s.location.clone();
    for (step, z) in zones.iter().enumerate() {
        reached = Location::Sea(z.clone());
        set_loc(state, squadron, reached.clone());
        voyage = intercept(ph, state, order, &under, z, step, &mut out)?;
        if voyage != Voyage::Sailed {
            break;
        }
    }
    if voyage == Voyage::Sunk {
        out.extend(lose_cargo(ph.scenario, state, power, order));
        return Ok(out);
    }
    out.push(arrive(scenario, state, order, &under, reached, voyage, zones.len()).power(power));
    Ok(out)
}

/// Blockade running (after 12.2.9): a squadron leaving a port enemy
/// squadrons blockade rolls to slip through. `None` when no enemy
/// blockades the port; else the roll's outcome, of kind `OrderFailed`
/// when the squadron stays in port.
fn run_blockade(
    ph: &mut Phase,
    state: &State,
    order: &Sortie,
    under: &Under,
    port: &str,
) -> Result<Option<Outcome>, DiceError> {
    let t = &ph.scenario.tables.naval;
    let blockaders = state
        .squadrons
        .iter()
        .filter(|&b| b.blockading.as_deref() == Some(port) && hostile(state, &under.me, b))
        .count();
    // with the EiA option the blockade step (12.2.9,
    // `naval_option::blockade`) ran before anyone sailed
    if blockaders == 0 || super::option_naval::enabled(state) {
        return Ok(None);
    }
    let p = format!("blockade-run/{port}/{}", under.sk);
    let d = ph.dice.roll(&p, t.die)?;
    let ok = d <= t.blockade_run_target;
    let rule_why = format!(
        "die {d} against at most {} (tables/naval.toml blockade_run_target)",
        t.blockade_run_target
    );
    Ok(Some(
        Outcome::new(
            "5.4",
            if ok { Kind::BlockadeRun } else { Kind::OrderFailed },
            format!(
                "{} {} the blockade of {}",
                order.squadron.name(ph.scenario),
                if ok { "slips through" } else { "fails to break" },
                name(ph.scenario, port)
            ),
        )
        .power(ph.power)
        .order(order.text)
        .die(&p, d)
        .why(rule_why),
    ))
}

/// The hostile squadrons that may intercept in zone `z`, by commanding
/// power: at sea there, or (`intercept_from_port`) in an unblockaded port
/// on it.
fn interceptors(scenario: &Scenario, state: &State, me: &Squadron, z: &str) -> BTreeMap<Option<PowerId>, Vec<UnitKey>> {
    let t = &scenario.tables.naval;
    let mut by_power: BTreeMap<Option<PowerId>, Vec<UnitKey>> = BTreeMap::new();
    if super::naval_option::west_indies::no_interception(scenario, z) {
        return by_power; // 12.2.7.3
    }
    for x in &state.squadrons {
        if !hostile(state, me, x) {
            continue;
        }
        let here = match &x.location {
            Location::Sea(q) => q == z,
            Location::Port(p) => {
                t.intercept_from_port
                    && scenario
                        .map
                        .province(p)
                        .is_some_and(|pp| pp.seas.iter().any(|s| s == z))
                    && !state
                        .squadrons
                        .iter()
                        .any(|b| b.blockading.as_deref() == Some(p.as_str()) && hostile(state, x, b))
            }
        };
        if here {
            by_power
                .entry(state.squadron_power(x))
                .or_default()
                .push(UnitKey::squadron(x.nation.clone(), x.number));
        }
    }
    by_power
}

/// Interception in zone `z`, step `step` of the route: each power with
/// squadrons there that intercepts rolls (Naval Location/Interception
/// table); a hit is a naval battle.
fn intercept(
    ph: &mut Phase,
    state: &mut State,
    order: &Sortie,
    under: &Under,
    z: &str,
    step: usize,
    out: &mut Vec<Outcome>,
) -> Result<Voyage, DiceError> {
    let scenario = ph.scenario;
    let t = &scenario.tables.naval;
    let squadron = order.squadron;
    for (ip, keys) in interceptors(scenario, state, &under.me, z) {
        let (on, decided) = match ip {
            Some(p) => standing::intercepts(state, p),
            None => (true, standing::Decided::Default("minor powers always intercept".into())),
        };
        // `who` is part of the dice purpose; `whom` is how reports name it
        let who = ip
            .map(|p| p.id().to_string())
            .unwrap_or_else(|| keys[0].nation.to_string());
        let whom = ip.map_or_else(|| crate::state::nation_name(scenario, &keys[0].nation), |p| p.name());
        let seen_by: Vec<PowerId> = [Some(under.mover), ip].into_iter().flatten().collect();
        if !on {
            out.push(
                Outcome::new(
                    "5.4",
                    Kind::NoInterception,
                    format!("{whom} lets {} pass {}", squadron.name(scenario), name(scenario, z)),
                )
                .why(format!("{decided}"))
                .only(seen_by),
            );
            continue;
        }
        // the step, because a route may cross the same zone twice
        let p = format!("intercept/{z}/{}/{who}/step-{}", under.sk, step + 1);
        let d = ph.dice.roll(&p, t.die)?;
        let target = t.intercept_target
            - t.intercept_per_extra_squadron * (keys.len() as i32 - 1)
            - nat_mod(&t.intercept_nationality, ip);
        let hit = d as i32 >= target;
        out.push(
            Outcome::new(
                "5.4",
                Kind::Interception,
                format!(
                    "{whom} {} {} in {}",
                    if hit { "intercepts" } else { "fails to intercept" },
                    squadron.name(scenario),
                    name(scenario, z)
                ),
            )
            .die(&p, d)
            .why(format!(
                "Naval Location/Interception: die {d} against {target} ({} less {} per extra squadron, nationality) ({decided})",
                t.intercept_target, t.intercept_per_extra_squadron
            ))
            .only(seen_by),
        );
        if !hit {
            continue;
        }
        for k in &keys {
            set_loc(state, k, Location::Sea(z.to_string()));
        }
        if super::option_naval::enabled(state) {
            // 12.2.6.1: the interceptors attack
            let e = open_sea::Engagement {
                sea: z,
                attackers: &keys,
                defenders: std::slice::from_ref(squadron),
                text: order.text,
            };
            let (os, ending) = open_sea::battle(ph, state, &e)?;
            out.extend(os);
            if state.squadron(&squadron.nation, squadron.number).is_none() {
                return Ok(Voyage::Sunk);
            }
            // 12.2.6.1.8: an intercepted fleet which has not lost a
            // battle may continue to move (unless its standing order
            // took it to port or to a blockade after the battle)
            let moved = state
                .squadron(&squadron.nation, squadron.number)
                .is_some_and(|s| s.location != Location::Sea(z.to_string()) || s.blockading.is_some());
            if ending == Ending::Victor(0) || moved {
                return Ok(Voyage::Stopped);
            }
            continue;
        }
        ph.battles += 1;
        let (bo, won) = battle(
            scenario,
            state,
            ph.dice,
            z,
            ph.battles,
            std::slice::from_ref(squadron),
            &keys,
        )?;
        out.push(bo);
        if state.squadron(&squadron.nation, squadron.number).is_none() {
            return Ok(Voyage::Sunk);
        }
        if won != Some(true) {
            return Ok(Voyage::Stopped);
        }
    }
    Ok(Voyage::Sailed)
}

/// House: corps aboard a sunk squadron are lost, their divisions to the
/// pool (2.51).
fn lose_cargo(scenario: &Scenario, state: &mut State, power: PowerId, order: &Sortie) -> Option<Outcome> {
    for k in order.carrying {
        let divs = state
            .corps_mut(&k.nation, k.number)
            .map(|c| {
                c.location = None;
                std::mem::take(&mut c.divisions)
            })
            .unwrap_or_default();
        for d in &divs {
            to_pool(state, d);
        }
    }
    if order.carrying.is_empty() {
        return None;
    }
    let names: Vec<String> = order.carrying.iter().map(|k| k.name(scenario)).collect();
    Some(
        Outcome::new(
            "5.4",
            Kind::TransportLost,
            format!("{} go down with {}", names.join(", "), order.squadron.name(scenario)),
        )
        .power(power)
        .why(Why::house(
            "corps aboard a sunk squadron are lost; divisions return to the pool (2.51)",
        )),
    )
}

/// The end of a voyage that did not sink: the corps carried land and the
/// squadron enters the port when it sailed its route, or they stay
/// ashore when it was stopped at sea.
fn arrive(
    scenario: &Scenario,
    state: &mut State,
    order: &Sortie,
    under: &Under,
    mut reached: Location,
    voyage: Voyage,
    zones: usize,
) -> Outcome {
    let squadron = order.squadron;
    let names: Vec<String> = order.carrying.iter().map(|k| k.name(scenario)).collect();
    let stopped = voyage == Voyage::Stopped;
    if stopped && let Some(s) = state.squadron(&squadron.nation, squadron.number) {
        // a beaten fleet may have retreated to port (12.2.6.1.8)
        reached = s.location.clone();
    }
    let mut summary = format!("{} sails to {}", squadron.name(scenario), loc_name(scenario, &reached));
    if !stopped && let Some(p) = order.to_port {
        if !order.carrying.is_empty() {
            for k in order.carrying {
                if let Some(c) = state.corps_mut(&k.nation, k.number) {
                    c.location = Some(p.to_string());
                }
            }
            summary.push_str(&format!(" and lands {} in {}", names.join(", "), name(scenario, p)));
        }
        if scenario.map.province(p).is_some_and(|x| x.port) && friendly(state, under.mover, p) {
            reached = Location::Port(p.to_string());
            set_loc(state, squadron, reached);
            summary.push_str(&format!("; it enters the port of {}", name(scenario, p)));
        }
    } else if stopped && !order.carrying.is_empty() {
        summary.push_str(&format!("; stopped at sea, {} stay ashore", names.join(", ")));
    }
    Outcome::new("5.4", Kind::NavalMove, summary)
        .order(order.text)
        .why(format!(
            "{zones} sea zone(s) of an allowance of {}",
            scenario.tables.naval.allowance_for(under.mover.id())
        ))
}

fn set_loc(state: &mut State, k: &UnitKey, l: Location) {
    if let Some(s) = state.squadron_mut(&k.nation, k.number) {
        s.location = l;
        s.blockading = None;
    }
}

/// Check a naval attack (5.4): the squadron is in or next to the zone
/// and enemy squadrons are at sea there.
pub fn check_attack(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    squadron: &UnitKey,
    sea: &str,
) -> Result<(), Rejection> {
    let s = ordered_squadron(scenario, state, power, squadron)?;
    if scenario.map.sea(sea).is_none() {
        return Err(rej("5.4", format!("'{sea}' is not a sea zone")));
    }
    super::naval_option::west_indies::check_attack(scenario, sea)?; // 12.2.7.3
    let in_reach = match &s.location {
        Location::Sea(z) => z == sea,
        Location::Port(p) => scenario
            .map
            .province(p)
            .is_some_and(|x| x.seas.iter().any(|z| z == sea)),
    };
    if !in_reach {
        return Err(rej(
            "5.4",
            format!(
                "{} is not in or next to {}",
                squadron.name(scenario),
                name(scenario, sea)
            ),
        ));
    }
    if !state
        .squadrons
        .iter()
        .any(|x| x.location == Location::Sea(sea.to_string()) && at_war(state, s, x))
    {
        return Err(rej(
            "5.4",
            format!("no enemy squadron is at sea in {}", name(scenario, sea)),
        ));
    }
    Ok(())
}

/// Attack the enemy squadrons in a sea zone (5.4).
pub fn attack(
    ph: &mut Phase,
    state: &mut State,
    squadron: &UnitKey,
    sea: &str,
    text: &str,
) -> Result<Vec<Outcome>, DiceError> {
    let (scenario, power) = (ph.scenario, ph.power);
    if let Err(r) = check_attack(scenario, state, power, squadron, sea) {
        return Ok(vec![
            Outcome::new(&r.rule, Kind::OrderFailed, r.reason)
                .power(power)
                .order(text)
                .only(vec![power]),
        ]);
    }
    let Some(s) = state.squadron(&squadron.nation, squadron.number).cloned() else {
        return Ok(Vec::new());
    };
    let enemies: Vec<UnitKey> = state
        .squadrons
        .iter()
        .filter(|x| x.location == Location::Sea(sea.to_string()) && at_war(state, &s, x))
        .map(|x| UnitKey::squadron(x.nation.clone(), x.number))
        .collect();
    let own: Vec<UnitKey> = state
        .squadrons
        .iter()
        .filter(|x| {
            (x.location == Location::Sea(sea.to_string()) || (x.nation == s.nation && x.number == s.number))
                && !hostile(state, &s, *x)
                && state.squadron_power(x) == state.squadron_power(&s)
        })
        .map(|x| UnitKey::squadron(x.nation.clone(), x.number))
        .collect();
    set_loc(state, squadron, Location::Sea(sea.to_string()));
    if super::option_naval::enabled(state) {
        let mut out = Vec::new();
        let mut enemies = enemies;
        // 12.2.7.3: off the board the attacked fleets may evade
        if let Some((stay, mut os)) =
            super::naval_option::west_indies::evade(ph, state, sea, power, squadron, &enemies)?
        {
            os[0] = os[0].clone().order(text);
            out.extend(os);
            enemies = stay;
            if enemies.is_empty() {
                return Ok(out);
            }
        }
        let e = open_sea::Engagement {
            sea,
            attackers: &own,
            defenders: &enemies,
            text,
        };
        out.extend(open_sea::battle(ph, state, &e)?.0);
        return Ok(out);
    }
    ph.battles += 1;
    let (o, _) = battle(scenario, state, ph.dice, sea, ph.battles, &own, &enemies)?;
    Ok(vec![o.order(text)])
}

/// 5.4: whether squadrons of `a` and `b` fight each other in a naval
/// attack: their powers are at war. A neutral minor's squadron sharing
/// the zone takes no part. A held squadron fights for its holder (11.7.1).
fn at_war(state: &State, a: &Squadron, b: &Squadron) -> bool {
    match (state.squadron_power(a), state.squadron_power(b)) {
        (Some(x), Some(y)) => x != y && state.relations.at_war(x, y),
        _ => false,
    }
}

/// Check a blockade order (5.4): a squadron at sea in a zone the port
/// borders.
pub fn check_blockade(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    squadron: &UnitKey,
    port: &str,
) -> Result<(), Rejection> {
    let s = ordered_squadron(scenario, state, power, squadron)?;
    port_from_sea(scenario, s, port, ("5.4", "blockade")).map(|_| ())
}

/// A port a squadron at sea may act on (a blockade, 5.4; a raid,
/// 12.2.6.3): `port` is a province with a port, and the squadron is at
/// sea in a zone it borders. `(rule, doing)` names the rule refused and
/// what the squadron would do there (`blockade`, `raid a port`).
pub(crate) fn port_from_sea<'s>(
    scenario: &'s Scenario,
    s: &Squadron,
    port: &str,
    (rule, doing): (&str, &str),
) -> Result<&'s crate::map::Province, Rejection> {
    let Some(p) = scenario.map.province(port) else {
        return Err(rej(rule, format!("'{port}' is not a province")));
    };
    if !p.port {
        return Err(rej(rule, format!("{} has no port", p.name)));
    }
    let Location::Sea(z) = &s.location else {
        let k = UnitKey::squadron(s.nation.clone(), s.number);
        return Err(rej(rule, format!("{} must be at sea to {doing}", k.name(scenario))));
    };
    if !p.seas.contains(z) {
        return Err(rej(rule, format!("{} does not border {}", p.name, name(scenario, z))));
    }
    Ok(p)
}

/// Blockade a port from an adjacent sea zone (5.4).
pub fn blockade(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    squadron: &UnitKey,
    port: &str,
    text: &str,
) -> Outcome {
    if let Err(r) = check_blockade(scenario, state, power, squadron, port) {
        return Outcome::new(&r.rule, Kind::OrderFailed, r.reason)
            .power(power)
            .order(text)
            .only(vec![power]);
    }
    let name_of = scenario.map.province(port).map(|p| p.name.clone()).unwrap_or_default();
    if let Some(x) = state.squadron_mut(&squadron.nation, squadron.number) {
        x.blockading = Some(port.to_string());
    }
    Outcome::new(
        "5.4",
        Kind::Blockade,
        format!("{} blockades {name_of}", squadron.name(scenario)),
    )
    .power(power)
    .order(text)
}
