//! Control of provinces (4.21, 2.12, 2.23), sides in war, and the force
//! pool (2.51): the questions every military rule asks.
//!
//! Owns: who is hostile to whom, which provinces a power controls, where
//! a lost division goes, the invariants that tie control to garrisons,
//! and the conquest of a minor power (3.41: all its provinces held by one
//! major; rules I applies the consequences at Winter). Leaves: taxes and
//! VP from control to rules I.

use crate::ids::{Nation, PowerId};
use crate::map::{Owner, Province};
use crate::rules::Kind;
use crate::rules::Outcome;
use crate::rules::Why;
use crate::rules::side::same_side;
use crate::scenario::{Arm, Scenario};
use crate::state::{Corps, Division, Location, Squadron, State, UnitKey};
use std::collections::{BTreeMap, BTreeSet};

/// A force a military rule asks about: a nation's forces at large, one
/// corps, one squadron, or a unit named by its key.
#[derive(Clone, Copy)]
pub enum Force<'a> {
    Nation(&'a Nation),
    Corps(&'a Corps),
    Squadron(&'a Squadron),
    Unit(&'a UnitKey),
}

impl<'a> From<&'a Nation> for Force<'a> {
    fn from(n: &'a Nation) -> Self {
        Force::Nation(n)
    }
}

impl<'a> From<&'a Corps> for Force<'a> {
    fn from(c: &'a Corps) -> Self {
        Force::Corps(c)
    }
}

impl<'a> From<&'a Squadron> for Force<'a> {
    fn from(s: &'a Squadron) -> Self {
        Force::Squadron(s)
    }
}

impl<'a> From<&'a UnitKey> for Force<'a> {
    fn from(k: &'a UnitKey) -> Self {
        Force::Unit(k)
    }
}

/// The major power commanding `force` now (`None`: a minor's forces no
/// major commands). A nation's forces follow its owner or the holder of
/// its kingdom ([`State::commanding_power`]); a minor corps kept by the
/// power that held it before its minor was conquered fights for that
/// power (3.41, [`State::corps_power`]); a held fleet for its holder
/// (11.7.1, [`State::squadron_power`]).
pub fn commanding_power_of<'a>(state: &State, force: impl Into<Force<'a>>) -> Option<PowerId> {
    match force.into() {
        Force::Nation(n) => state.commanding_power(n),
        Force::Corps(c) => state.corps_power(c),
        Force::Squadron(s) => state.squadron_power(s),
        Force::Unit(k) => state.unit_power(k),
    }
}

/// Two forces fight when they meet: their commanding powers
/// ([`commanding_power_of`]) are hostile ([`sides_hostile`]). The one
/// hostility question every military rule asks, on land and at sea.
pub fn hostile<'a, 'b>(state: &State, a: impl Into<Force<'a>>, b: impl Into<Force<'b>>) -> bool {
    sides_hostile(state, commanding_power_of(state, a), commanding_power_of(state, b))
}

/// Whether forces commanded by `x` and by `y` fight: their powers are at
/// war, or one of them is a minor no major power commands, whose forces
/// resist every invader (`None`, 3.41).
pub fn sides_hostile(state: &State, x: Option<PowerId>, y: Option<PowerId>) -> bool {
    match (x, y) {
        (Some(x), Some(y)) => x != y && state.relations.at_war(x, y),
        (None, None) => false,
        _ => true,
    }
}

/// Whether `power`'s forces may stand in `province` without violating a
/// neutral (house 5.5: entering a neutral major power's controlled
/// province needs a declaration of war; 3.31: nobody enters a Controlled
/// NPC's territory unless at war with it).
pub fn entry_refused(scenario: &Scenario, state: &State, power: PowerId, province: &str) -> Option<(String, String)> {
    let ps = state.provinces.get(province)?;
    let holder = ps.controller.as_ref().and_then(|n| state.commanding_power(n));
    // 3.31: the Allied PC, his Allies and his Allied NPCs pass through
    // one another's territory (`side::same_side`)
    if let Some(h) = holder
        && !same_side(state, power, h)
        && !state.relations.at_war(power, h)
        // 11.9.2.2 C.5: access granted by a peace lets `power`'s forces in
        && !crate::rules::political::peace::has_access(state, power, h)
    {
        // 3.31: a Controlled NPC's own territory
        let controlled = matches!(state.power(h).control, crate::state::Control::Controlled { .. });
        let rule = if controlled { "3.31" } else { "5.5" };
        return Some((
            rule.to_string(),
            format!(
                "{} is held by {}, with which {} is not at war",
                name(scenario, province),
                h.name(),
                power.name()
            ),
        ));
    }
    None
}

/// 4.21: `power` controls `province`: its own home province without a
/// foreign garrison, or a province outside its home holding its garrison.
pub fn controls(scenario: &Scenario, state: &State, power: PowerId, province: &str) -> bool {
    let Some(ps) = state.provinces.get(province) else {
        return false;
    };
    ps.controller == Some(Nation::Major(power)) && !ps.rebellion && {
        let home = scenario
            .map
            .province(province)
            .is_some_and(|p| p.kind.is_home() && p.owner == Owner::Major(power));
        home || ps
            .garrison
            .as_ref()
            .is_some_and(|g| state.garrison_power(g) == Some(power))
    }
}

/// The nation that owns a province on the printed map (2.11: its
/// original owner), if any.
pub fn original_owner(p: &Province) -> Option<Nation> {
    match &p.owner {
        Owner::Major(m) => Some(Nation::Major(*m)),
        Owner::Minor(m) => Some(Nation::Minor(m.clone())),
        Owner::None => None,
    }
}

/// Whether `province` is friendly ground for `power`: controlled by it,
/// an ally or a minor they command.
pub fn friendly(state: &State, power: PowerId, province: &str) -> bool {
    state
        .provinces
        .get(province)
        .and_then(|ps| ps.controller.as_ref())
        .and_then(|n| state.commanding_power(n))
        .is_some_and(|h| same_side(state, power, h))
}

/// 2.51: a lost division goes back to its nation's force pool.
pub fn to_pool(state: &mut State, d: &Division) {
    to_pool_arm(state, &d.nation, d.arm);
}

pub fn to_pool_arm(state: &mut State, nation: &Nation, arm: Arm) {
    match nation {
        Nation::Major(p) => *state.power_mut(*p).pool.of_mut(arm) += 1,
        Nation::Minor(m) => {
            if let Some(ms) = state.minors.get_mut(m) {
                *ms.pool.of_mut(arm) += 1;
            }
        }
    }
}

/// A lost squadron goes back to its nation's pool (2.51).
pub fn squadron_to_pool(state: &mut State, nation: &Nation) {
    match nation {
        Nation::Major(p) => state.power_mut(*p).pool.squadrons += 1,
        Nation::Minor(m) => {
            if let Some(ms) = state.minors.get_mut(m) {
                ms.pool.squadrons += 1;
            }
        }
    }
}

/// Display name of a province or sea zone (its id if unknown).
pub fn name(scenario: &Scenario, id: &str) -> String {
    scenario
        .map
        .province(id)
        .map(|p| p.name.clone())
        .or_else(|| scenario.map.sea(id).map(|s| s.name.clone()))
        .unwrap_or_else(|| id.to_string())
}

/// Every way the state breaks the control rules (empty when sound): a
/// garrison whose nation does not control the province, or a province
/// outside its controller's home held without a garrison (2.12, 2.23).
pub fn check(scenario: &Scenario, state: &State) -> Vec<String> {
    let mut bad = Vec::new();
    for (id, ps) in &state.provinces {
        let Some(p) = scenario.map.province(id) else {
            bad.push(format!("{id}: not a province"));
            continue;
        };
        // a kingdom's garrison holds for its holder (11.1.2)
        let holds = |g: &crate::state::Garrison| match g.held_by {
            Some(h) => ps.controller == Some(Nation::Major(h)),
            None => ps.controller.as_ref() == Some(&g.nation),
        };
        if let Some(g) = &ps.garrison
            && !holds(g)
        {
            bad.push(format!(
                "{id}: garrison of {} but controlled by {:?}",
                g.nation, ps.controller
            ));
        }
        if let Some(Nation::Major(c)) = &ps.controller {
            let home = p.kind.is_home() && p.owner == Owner::Major(*c);
            if !home && ps.garrison.is_none() {
                bad.push(format!("{id}: held by {c} outside its home without a garrison (2.23)"));
            }
        }
    }
    bad
}

/// 3.41: when `new` conquers minor `m` from `old`, the minor's corps in
/// play stay in `old`'s army "until they are destroyed or desert"; only
/// the unbuilt pool and the squadrons (3.43) change hands. A corps the
/// new owner held before comes back to it.
pub fn keep_corps_in_play(state: &mut State, m: &str, old: Option<PowerId>, new: PowerId) {
    let nation = Nation::Minor(m.to_string());
    for c in state.corps.iter_mut().filter(|c| c.nation == nation) {
        if c.held_by == Some(new) {
            c.held_by = None;
        } else if let Some(o) = old
            && c.held_by.is_none()
            && c.location.is_some()
            && !c.divisions.is_empty()
        {
            c.held_by = Some(o);
        }
    }
}

/// How a minor changes hands: taken by conquest (3.41: its corps in play
/// stay in the former owner's army) or received by cession (11.1.4,
/// 11.4.4: its forces are ceded with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handover {
    Conquest,
    Cession,
}

/// 3.41, 3.43: minor `m` passes from `old` to `new`, by conquest or by
/// cession. Every path that changes a minor's owner goes through here,
/// so its unbuilt pool, its corps and its squadrons follow one rule.
/// Returns the why lines of the squadrons' move (3.43).
pub fn minor_changes_hands(
    scenario: &Scenario,
    state: &mut State,
    m: &str,
    old: Option<PowerId>,
    new: PowerId,
    how: Handover,
) -> Vec<Why> {
    if let Some(ms) = state.minors.get_mut(m) {
        ms.controller = Some(new);
    }
    match how {
        Handover::Conquest => keep_corps_in_play(state, m, old, new),
        Handover::Cession => {
            // 11.1.4: the forces go with the minor, but a corps another
            // power still keeps (3.41) is not the ceder's to give
            let nation = Nation::Minor(m.to_string());
            for c in state.corps.iter_mut().filter(|c| c.nation == nation) {
                if c.held_by.is_none() || c.held_by == old || c.held_by == Some(new) {
                    c.held_by = None;
                }
            }
        }
    }
    squadrons_join(scenario, state, m, new)
}

/// 3.43: when minor `m` passes to `new`, its surviving squadrons switch
/// allegiance at once and are placed on the nearest stack of `new`'s
/// squadrons (not subject to interception), counting sea-zone steps and
/// one step in or out of a port; ties go to the first location in id
/// order. With no squadron of `new` on the map they stay where they are
/// (house reading: the seed names no other place). Returns why lines.
pub fn squadrons_join(scenario: &Scenario, state: &mut State, m: &str, new: PowerId) -> Vec<Why> {
    let nation = Nation::Minor(m.to_string());
    let stacks: BTreeSet<(Location, Option<String>)> = state
        .squadrons
        .iter()
        .filter(|s| s.nation != nation && state.commanding_power(&s.nation) == Some(new))
        .map(|s| (s.location.clone(), s.blockading.clone()))
        .collect();
    let mut why = Vec::new();
    for sq in state.squadrons.iter_mut().filter(|s| s.nation == nation) {
        let steps = scenario.map.sea_steps(&zones(scenario, &sq.location));
        let nearest = stacks
            .iter()
            .filter_map(|(loc, b)| {
                let d = if *loc == sq.location {
                    0
                } else {
                    zones(scenario, loc).iter().filter_map(|z| steps.get(*z)).min()?
                        + u32::from(matches!(loc, Location::Port(_)))
                        + u32::from(matches!(sq.location, Location::Port(_)))
                };
                Some((d, loc, b))
            })
            .min();
        let Some((_, loc, blockading)) = nearest else {
            continue;
        };
        if *loc != sq.location {
            why.push(Why::rule(
                "3.43",
                format!(
                    "{m} squadron {} joins the nearest {} squadrons, {}",
                    sq.number,
                    new.adjective(),
                    where_is(scenario, loc)
                ),
            ));
            sq.location = loc.clone();
            sq.blockading = blockading.clone();
        }
    }
    why
}

/// The sea zones a squadron's location touches: its zone, or the zones a
/// port borders.
fn zones<'a>(scenario: &'a Scenario, loc: &'a Location) -> Vec<&'a str> {
    match loc {
        Location::Sea(z) => vec![z.as_str()],
        Location::Port(p) => scenario
            .map
            .province(p)
            .map(|p| p.seas.iter().map(String::as_str).collect())
            .unwrap_or_default(),
    }
}

fn where_is(scenario: &Scenario, loc: &Location) -> String {
    match loc {
        Location::Port(p) => format!("in the port of {}", name(scenario, p)),
        Location::Sea(z) => format!("at sea in {}", name(scenario, z)),
    }
}

/// 3.41: minor powers all of whose provinces are now held by one major
/// power, which becomes their controller. Returns outcomes.
pub fn conquests(scenario: &Scenario, state: &mut State) -> Vec<Outcome> {
    let mut out = Vec::new();
    let mut by_minor: BTreeMap<String, BTreeSet<Option<Nation>>> = BTreeMap::new();
    for p in &scenario.map.provinces {
        if let Owner::Minor(m) = &p.owner {
            let c = state.provinces.get(&p.id).and_then(|ps| ps.controller.clone());
            by_minor.entry(m.clone()).or_default().insert(c);
        }
    }
    for (m, holders) in by_minor {
        if holders.len() != 1 {
            continue;
        }
        let Some(Some(Nation::Major(p))) = holders.into_iter().next() else {
            continue;
        };
        let Some(ms) = state.minors.get_mut(&m) else { continue };
        if ms.controller == Some(p) {
            continue;
        }
        let old = ms.controller;
        let mut o = Outcome::new(
            "3.41",
            Kind::MinorConquered,
            format!("{} holds every province of {m} and conquers it", p.name()),
        )
        .power(p)
        .why(Why::rule(
            "3.41",
            "all of a minor power's provinces held by one major power",
        ));
        for w in minor_changes_hands(scenario, state, &m, old, p, Handover::Conquest) {
            o = o.why(w);
        }
        out.push(o);
    }
    out
}
