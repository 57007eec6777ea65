//! 11.9 Political restrictions on peace (EiA option `political`), with
//! the switches and readings of `tables/political_dominance.toml`
//! (`[peace]`):
//!
//! - 11.9.1.1 a major power with a player never has its home nation
//!   reduced by more than three provinces: peace (5.1) or surrender
//!   (5.12) terms that would cede a fourth are refused, by the order
//!   checker and by the engine alike ([`terms_refused`]). The home nation
//!   is the power's `home` provinces (remapable home provinces are given
//!   up at any surrender as if minor, 2.12e, so they are not counted) and
//!   those it gained by 11.8.2.6; a province counts as lost once ceded by
//!   terms ([`record_cession`]) until its power controls it again.
//! - 11.9.1.2 no civil disorder: La Guerre has no civil disorder; its
//!   nearest analogue is the forced surrender whose house trigger
//!   (`tables/surrender.toml`: the capital held by an enemy for
//!   `capital_turns` turns) stands for EiA's civil disorder conditions
//!   (8.7). For a power with a player the conditions lead instead to peace
//!   with every major power it is at war with then, in that same Peace
//!   Step: the power accepts the house's default terms from each of them
//!   ("sue for and accept any type of peace", [`civil_disorder`]).
//! - 11.9.2.1 France and Great Britain start at war in the 1805 campaign
//!   ([`start_at_war`]) and, while both are dominant, may not ally
//!   ([`alliance_barred`]). La Guerre has no informal peace (every peace
//!   is made by 5.1 or 5.12), so the errata's ban needs no rule here.
//! - 11.9.2.2 mandatory peace conditions between them ([`terms_refused`],
//!   [`with_mandatory`], [`carry_out`]): when France sues Great Britain
//!   (offers peace or surrenders) its terms must remove NAPOLEON (C.6)
//!   unless he is already gone; when Great Britain sues France its terms
//!   must remove two British squadrons (C.1.c) and give French forces
//!   access (C.5). Every peace in La Guerre is between two powers, so "a
//!   major power with which France is making peace at the same time"
//!   never has a say. Dropped once France or Britain is no longer dominant
//!   or another power is (11.8).

use super::dominance;
use crate::ids::PowerId;
use crate::map::{Owner, ProvinceKind};
use crate::orders::ast::{Arg, Terms};
use crate::rules::{Kind, Outcome, Rejection};
use crate::scenario::Scenario;
use crate::state::State;
use std::collections::BTreeSet;

/// 11.9.1.1: "reduced by more than a total of three provinces".
const MAX_HOME_LOSSES: usize = 3;

/// 11.9.2.2 C.6: the leader Great Britain must remove.
const NAPOLEON: &str = "Napoleon";

/// 11.9.2.2 C.1.c: the fleets France must remove.
const FLEETS_REMOVED: u32 = 2;

fn on(state: &State) -> bool {
    super::enabled(state)
}

/// 11.9.1.1 / 11.8.2.6: the provinces of `p`'s home nation now.
pub fn home_nation(scenario: &Scenario, state: &State, p: PowerId) -> BTreeSet<String> {
    let annexed = &state.dominance.annexed;
    scenario
        .map
        .provinces
        .iter()
        .filter(|x| x.kind == ProvinceKind::Home && x.owner == Owner::Major(p))
        .map(|x| x.id.clone())
        .filter(|id| annexed.get(id).is_none_or(|q| *q == p))
        .chain(annexed.iter().filter(|(_, q)| **q == p).map(|(id, _)| id.clone()))
        .collect()
}

/// 11.9.1.1: home provinces `p` has ceded and not controlled since.
pub fn lost_home(scenario: &Scenario, state: &State, p: PowerId) -> BTreeSet<String> {
    let home = home_nation(scenario, state, p);
    state
        .dominance
        .ceded_home
        .get(&p)
        .into_iter()
        .flatten()
        .filter(|id| home.contains(*id))
        .filter(|id| crate::rules::economy::controller(scenario, state, id) != Some(p))
        .cloned()
        .collect()
}

/// 11.9.1.1: `from` has just ceded `pid` by terms; remember it if it is
/// a province of its home nation.
pub fn record_cession(scenario: &Scenario, state: &mut State, from: PowerId, pid: &str) {
    if on(state) && home_nation(scenario, state, from).contains(pid) {
        state
            .dominance
            .ceded_home
            .entry(from)
            .or_default()
            .insert(pid.to_string());
    }
}

/// Why `from` may not make peace with (or surrender to) `to` on `terms`
/// under 11.9.1.1 or 11.9.2.2, if it may not. The order checker and the
/// engine both ask.
pub fn terms_refused(
    scenario: &Scenario,
    state: &State,
    from: PowerId,
    to: PowerId,
    terms: &Terms,
) -> Option<Rejection> {
    if !on(state) {
        return None;
    }
    losses_refused(scenario, state, from, terms).or_else(|| conditions_refused(scenario, state, from, to, terms))
}

/// 11.9.1.1: terms that would take a fourth home province.
fn losses_refused(scenario: &Scenario, state: &State, from: PowerId, terms: &Terms) -> Option<Rejection> {
    let t = &scenario.tables.political_dominance.peace;
    if !t.territorial_losses || !crate::rules::side::is_player_country(state, from) {
        return None;
    }
    let home = home_nation(scenario, state, from);
    let mut lost = lost_home(scenario, state, from);
    // the first province ceded beyond the limit is the one at fault
    let mut over = None;
    for p in terms.provinces.iter().filter(|p| home.contains(*p)) {
        if lost.insert(p.clone()) && lost.len() > MAX_HOME_LOSSES && over.is_none() {
            over = Some(p.clone());
        }
    }
    let over = over?;
    let name = |id: &String| scenario.map.province(id).map_or(id.clone(), |p| p.name.clone());
    let names: Vec<String> = lost.iter().map(name).collect();
    Some(
        Rejection::new(
            "11.9.1.1",
            format!(
                "{}'s home nation may not lose more than {MAX_HOME_LOSSES} provinces; these terms would make it {} ({})",
                from.name(),
                lost.len(),
                names.join(", ")
            ),
        )
        .at(Arg::Province(over)),
    )
}

/// 11.9.2.1 / 11.9.2.2: France and Great Britain's duel is on: the
/// option's switch, both dominant and (for 11.9.2.2) nobody else.
fn duel(scenario: &Scenario, state: &State, others_matter: bool) -> bool {
    let (f, b) = (PowerId::France, PowerId::Britain);
    scenario.tables.political_dominance.peace.france_britain_at_war
        && dominance::is_dominant(state, f)
        && dominance::is_dominant(state, b)
        && !(others_matter
            && PowerId::ALL
                .into_iter()
                .any(|p| p != f && p != b && dominance::is_dominant(state, p)))
}

fn napoleon_alive(state: &State) -> bool {
    state.commanders.iter().any(|c| c.name.eq_ignore_ascii_case(NAPOLEON))
}

/// 11.9.2.2: the conditions `from` must grant when it sues `to`.
fn missing_conditions(scenario: &Scenario, state: &State, from: PowerId, to: PowerId, terms: &Terms) -> Vec<String> {
    let mut missing = Vec::new();
    if !duel(scenario, state, true) {
        return missing;
    }
    match (from, to) {
        // C.6: remove NAPOLEON, unless already killed
        (PowerId::France, PowerId::Britain)
            if napoleon_alive(state) && !terms.remove_leaders.iter().any(|n| n.eq_ignore_ascii_case(NAPOLEON)) =>
        {
            missing.push(format!("REMOVE {NAPOLEON} (condition C.6)"));
        }
        (PowerId::Britain, PowerId::France) => {
            // C.1.c: two fleets; C.5: access for French forces
            if terms.remove_squadrons < FLEETS_REMOVED {
                missing.push(format!("REMOVE {FLEETS_REMOVED} SQUADRONS (condition C.1.c)"));
            }
            if !terms.access {
                missing.push("ACCESS (condition C.5)".to_string());
            }
        }
        _ => {}
    }
    missing
}

fn conditions_refused(
    scenario: &Scenario,
    state: &State,
    from: PowerId,
    to: PowerId,
    terms: &Terms,
) -> Option<Rejection> {
    let missing = missing_conditions(scenario, state, from, to, terms);
    if missing.is_empty() {
        return None;
    }
    Some(Rejection::new(
        "11.9.2.2",
        format!(
            "when {} sues {} for peace, {} demands an unconditional peace with {}",
            from.name(),
            to.name(),
            to.name(),
            missing.join(" and ")
        ),
    ))
}

/// 11.9.2.2: `terms` with the mandatory conditions added (a forced
/// surrender, whose terms nobody wrote, grants them).
pub fn with_mandatory(scenario: &Scenario, state: &State, from: PowerId, to: PowerId, terms: Terms) -> Terms {
    let mut t = terms;
    if !on(state) || !duel(scenario, state, true) {
        return t;
    }
    match (from, to) {
        (PowerId::France, PowerId::Britain) if napoleon_alive(state) => t.remove_leaders.push(NAPOLEON.to_string()),
        (PowerId::Britain, PowerId::France) => {
            t.remove_squadrons = t.remove_squadrons.max(FLEETS_REMOVED);
            t.access = true;
        }
        _ => {}
    }
    t
}

/// 11.9.2.2: carry out the peace conditions `from` granted `to`: leaders
/// removed from the game (C.6), squadrons removed to the force pool
/// (C.1.c, the highest-numbered first), access for `to`'s forces (C.5).
pub fn carry_out(state: &mut State, from: PowerId, to: PowerId, terms: &Terms, mut o: Outcome) -> Outcome {
    for name in &terms.remove_leaders {
        let before = state.commanders.len();
        state
            .commanders
            .retain(|c| !(c.nation == from && c.name.eq_ignore_ascii_case(name)));
        if state.commanders.len() < before {
            o = o.why(format!("11.9.2.2 C.6: {name} is removed from the game"));
        }
    }
    for _ in 0..terms.remove_squadrons {
        let me = crate::ids::Nation::Major(from);
        let Some(pos) = state
            .squadrons
            .iter()
            .enumerate()
            .filter(|(_, s)| s.nation == me)
            .max_by_key(|(_, s)| s.number)
            .map(|(i, _)| i)
        else {
            break;
        };
        let s = state.squadrons.remove(pos);
        state.power_mut(from).pool.squadrons += 1;
        o = o.why(format!(
            "11.9.2.2 C.1.c: {} squadron {} is removed to the force pool",
            from.adjective(),
            s.number
        ));
    }
    if terms.access {
        state.dominance.access.entry(to).or_default().insert(from);
        let now = state.turn();
        state.dominance.access_granted.entry(to).or_default().insert(from, now);
        o = o.why(format!(
            "11.9.2.2 C.5: {} forces have access to {}'s provinces",
            to.adjective(),
            from.name()
        ));
    }
    o
}

/// 11.9.2.2 C.5: end each access `access_seasons` seasons after the
/// peace that granted it (`tables/political_dominance.toml`, house). An
/// access without a recorded grant (a state file from before durations)
/// is taken as granted now.
pub fn expire_access(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let seasons = scenario.tables.political_dominance.peace.access_seasons;
    let now = state.turn();
    let mut ended = Vec::new();
    for (grantee, grantors) in &state.dominance.access {
        let granted = state.dominance.access_granted.entry(*grantee).or_default();
        for grantor in grantors {
            let from = *granted.entry(*grantor).or_insert(now);
            let until = (0..seasons).fold(from, |t, _| t.next());
            if now >= until {
                ended.push((*grantee, *grantor, from));
            }
        }
    }
    for (grantee, grantor, from) in ended {
        if let Some(g) = state.dominance.access.get_mut(&grantee) {
            g.remove(&grantor);
        }
        if let Some(g) = state.dominance.access_granted.get_mut(&grantee) {
            g.remove(&grantor);
        }
        out.push(
            Outcome::new(
                "11.9.2.2",
                Kind::EnforcedPeaceExpired,
                format!(
                    "{} forces' access to {}'s provinces ends",
                    grantee.adjective(),
                    grantor.name()
                ),
            )
            .power(grantee)
            .why(format!(
                "C.5 granted in {from}; it lasts {seasons} seasons (tables/political_dominance.toml access_seasons, house)"
            )),
        );
    }
    state.dominance.access.retain(|_, g| !g.is_empty());
    state.dominance.access_granted.retain(|_, g| !g.is_empty());
}

/// 11.9.2.2 C.5: whether `holder` granted `power`'s forces access by a
/// peace (movement asks before refusing entry to a neutral's province).
pub fn has_access(state: &State, power: PowerId, holder: PowerId) -> bool {
    on(state)
        && state
            .dominance
            .access
            .get(&power)
            .is_some_and(|grantors| grantors.contains(&holder))
}

/// 11.9.2.1: France and Great Britain may not ally while both are
/// dominant.
pub fn alliance_barred(scenario: &Scenario, state: &State, a: PowerId, b: PowerId) -> Option<Rejection> {
    let pair = [a, b];
    if !on(state)
        || !pair.contains(&PowerId::France)
        || !pair.contains(&PowerId::Britain)
        || !duel(scenario, state, false)
    {
        return None;
    }
    Some(Rejection::new(
        "11.9.2.1",
        "France and Great Britain may never be allies while both are dominant powers",
    ))
}

/// 11.9.2.1: France and Great Britain start at war in a campaign that
/// starts in 1805 (called when a game is created): the pairs and start
/// years are `[[peace.start_at_war]]` of `tables/political_dominance.toml`.
pub fn start_at_war(scenario: &Scenario, state: &mut State) -> Option<Outcome> {
    let t = &scenario.tables.political_dominance.peace;
    if !on(state) || !t.france_britain_at_war {
        return None;
    }
    let pairs: Vec<[PowerId; 2]> = t
        .start_at_war
        .iter()
        .filter(|w| w.start_year == scenario.start.year)
        .map(|w| w.powers)
        .collect();
    for [a, b] in &pairs {
        state.relations.set_war(*a, *b, true);
    }
    let names: Vec<String> = pairs
        .iter()
        .map(|[a, b]| format!("{} and {}", a.name(), b.name()))
        .collect();
    (!pairs.is_empty()).then(|| {
        Outcome::new(
            "11.9.2.1",
            Kind::WarDeclared,
            format!("{} start at war", names.join("; ")),
        )
    })
}

/// 11.9.1.2: the enemies a player's power in the house surrender
/// trigger's conditions must make peace with instead of going into civil
/// disorder, if the rule applies to it (else `None`: the plain 5.12
/// forced surrender to the capital's holder).
pub fn civil_disorder(scenario: &Scenario, state: &State, p: PowerId) -> Option<Vec<PowerId>> {
    let t = &scenario.tables.political_dominance.peace;
    (on(state) && t.civil_disorder && crate::rules::side::is_player_country(state, p))
        .then(|| state.relations.enemies(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PowerId::*;

    fn game(options: &[&str]) -> (Scenario, State) {
        let s = Scenario::embedded("1805").unwrap();
        let players = PowerId::ALL.into_iter().collect();
        let state = State::initial(&s, "t", &players, options.iter().map(|o| o.to_string()).collect());
        (s, state)
    }

    #[test]
    fn france_and_britain_start_at_war_only_with_the_option() {
        let (s, mut state) = game(&["political"]);
        assert!(start_at_war(&s, &mut state).is_some());
        assert!(state.relations.at_war(France, Britain));
        let (s, mut state) = game(&[]);
        assert!(start_at_war(&s, &mut state).is_none());
        assert!(!state.relations.at_war(France, Britain));
    }

    #[test]
    fn the_pairs_at_war_come_from_the_table() {
        let (mut s, mut state) = game(&["political"]);
        s.tables.political_dominance.peace.start_at_war[0].powers = [Russia, Ottoman];
        let o = start_at_war(&s, &mut state).unwrap();
        assert!(state.relations.at_war(Russia, Ottoman));
        assert!(!state.relations.at_war(France, Britain));
        assert_eq!(o.summary, "Russia and Ottoman Empire start at war");
        // a row for another start year does nothing
        let (mut s, mut state) = game(&["political"]);
        s.tables.political_dominance.peace.start_at_war[0].start_year = 1812;
        assert!(start_at_war(&s, &mut state).is_none());
        assert!(!state.relations.at_war(France, Britain));
    }

    #[test]
    fn a_fourth_home_province_is_refused_the_third_is_not() {
        let (s, mut state) = game(&["political"]);
        // Austria has already ceded Prague and Moravia (held by France).
        for p in ["bohemia", "moravia"] {
            state.provinces.get_mut(p).unwrap().garrison =
                Some(crate::state::Garrison::of(crate::ids::Nation::Major(France)));
            record_cession(&s, &mut state, Austria, p);
        }
        assert_eq!(lost_home(&s, &state, Austria).len(), 2);
        let third = Terms {
            provinces: vec!["styria".into()],
            ..Terms::default()
        };
        assert!(terms_refused(&s, &state, Austria, France, &third).is_none());
        let two_more = Terms {
            provinces: vec!["styria".into(), "hungary".into()],
            ..Terms::default()
        };
        let r = terms_refused(&s, &state, Austria, France, &two_more).unwrap();
        assert_eq!(r.rule.as_str(), "11.9.1.1");
        // Remapable home provinces are not the home nation (2.12e).
        let remap = Terms {
            provinces: vec!["tyrol".into(), "illyria".into()],
            ..Terms::default()
        };
        assert!(terms_refused(&s, &state, Austria, France, &remap).is_none());
        // An NPC has no player to protect.
        state.power_mut(Austria).control = crate::state::Control::Inactive;
        assert!(terms_refused(&s, &state, Austria, France, &two_more).is_none());
    }
}
