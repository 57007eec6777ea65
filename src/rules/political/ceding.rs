//! Ceding kingdoms, voluntarily (the `CEDE` order of the New Political
//! Combinations Step) or as a peace condition (surrender terms, 5.12):
//! Poland only as a unit, with its marker, loyalty marker and forces
//! (11.1.4); the Kingdom of Bavaria only whole, with its marker, or to
//! Austria as in 11.4.3.2 (11.4.4); the others only as separate minor
//! countries and provinces, their marker never ceded (11.2.4, 11.3.4,
//! 11.5.4, 11.6.4). Also the Holy Roman Empire's peace conditions
//! (11.5.1.2, 11.5.1.3), read from La Guerre surrenders.
//!
//! A voluntary cession takes effect only if the receiver accepts it in
//! the same step (`ACCEPT Poland FROM France`); a refusal (`REFUSE …`)
//! or no answer leaves the kingdom where it is. House: a receiver
//! without a player (an NPC, 3.31) accepts, as an NPC accepts a peace
//! that gives it something (5.1). La Guerre's one peace with conditions is a surrender, so
//! Austria surrendering to a power is peace condition C.8 applied by it,
//! and that power surrendering to Austria is Austria's C.9 against it.

use super::kingdoms::{award, forces_left, names};
use crate::ids::PowerId;
use crate::orders::ast::{Arg, Order, PoliticalOrder};
use crate::rules::war::control::{Handover, minor_changes_hands};
use crate::rules::war::surrender::cede;
use crate::rules::{Kind, Outcome, PhaseOrders, Rejection, Why};
use crate::scenario::Scenario;
use crate::scenario::tables_political::KingdomDef;
use crate::state::State;
use std::collections::BTreeSet;

/// Whether `power` may cede `def` whole to `to` now.
pub fn check(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    def: &KingdomDef,
    to: PowerId,
) -> Result<(), Rejection> {
    let rule = format!("{}.4", def.rule);
    if def.id != "poland" && def.id != "bavaria" {
        let r = if def.id == "two_sicilies" {
            "11.7"
        } else {
            rule.as_str()
        };
        return Err(Rejection::new(
            r,
            format!(
                "the {} is ceded only as separate minor countries and provinces; its marker is never ceded",
                def.name
            ),
        ));
    }
    let Some(k) = state.political.kingdom(&def.id).filter(|k| k.controller == power) else {
        return Err(Rejection::new(
            rule.as_str(),
            format!("{} does not control the {}", power.name(), def.name),
        ));
    };
    if to == power {
        return Err(Rejection::coded(
            crate::diagnostic::Problem::SelfTarget,
            rule.as_str(),
            "a kingdom cannot be ceded to its own controller",
        )
        .at(crate::orders::ast::Arg::Power(to)));
    }
    // the receiver garrisons what it receives (2.23), but for its own home
    let need = k
        .components
        .iter()
        .filter(|c| {
            !scenario
                .map
                .province(c)
                .is_some_and(|p| p.kind.is_home() && p.owner == crate::map::Owner::Major(to))
        })
        .count() as u32;
    let have = state.power(to).pool.infantry;
    if def.id == "poland" && have < need {
        return Err(Rejection::coded(
            crate::diagnostic::Problem::PoolEmpty,
            "2.23",
            format!(
                "{} has {have} infantry in its pool to garrison the {need} province(s) of Poland",
                to.name()
            ),
        )
        .at(crate::orders::ast::Arg::Power(to)));
    }
    Ok(())
}

/// The receiver's answer to a `CEDE` (11.1.4, 11.4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Accepted,
    Refused,
    NoAnswer,
}

/// Whether `power` may answer the cession of `def` by `from`: the
/// kingdom is one ceded whole and `from` controls it.
pub fn check_answer(state: &State, power: PowerId, def: &KingdomDef, from: PowerId) -> Result<(), Rejection> {
    let rule = format!("{}.4", def.rule);
    if def.id != "poland" && def.id != "bavaria" {
        return Err(Rejection::new(
            rule.as_str(),
            format!("the {} is never ceded whole: there is nothing to answer", def.name),
        ));
    }
    if from == power || state.political.kingdom(&def.id).is_none_or(|k| k.controller != from) {
        return Err(Rejection::new(
            rule.as_str(),
            format!("{} does not control the {}", from.name(), def.name),
        ));
    }
    Ok(())
}

/// The answer `to` gave, among `all` the phase's orders, to `from`'s
/// cession of `def`; an NPC receiver accepts (house, as 5.1).
pub fn answer(state: &State, all: Option<&PhaseOrders>, from: PowerId, def: &KingdomDef, to: PowerId) -> Answer {
    if !crate::rules::side::is_player_country(state, to) {
        return Answer::Accepted;
    }
    let Some(lines) = all.and_then(|a| a.get(&to)) else {
        return Answer::NoAnswer;
    };
    for l in lines {
        match &l.order {
            Order::Political(PoliticalOrder::Accept { kingdom, from: f }) if *kingdom == def.id && *f == from => {
                return Answer::Accepted;
            }
            Order::Political(PoliticalOrder::Refuse { kingdom, from: f }) if *kingdom == def.id && *f == from => {
                return Answer::Refused;
            }
            _ => {}
        }
    }
    Answer::NoAnswer
}

/// The outcome of a cession the receiver did not accept.
pub fn not_accepted(from: PowerId, def: &KingdomDef, to: PowerId, answer: Answer, text: &str) -> Outcome {
    let how = if answer == Answer::Refused {
        "refuses it"
    } else {
        "sent no answer"
    };
    Outcome::new(
        format!("{}.4", def.rule).as_str(),
        Kind::OrderFailed,
        format!("{} does not receive the {}: it {how}", to.name(), def.name),
    )
    .power(from)
    .order(text)
    .why(format!(
        "a kingdom is ceded only if the receiver answers ACCEPT {} FROM {} in the same step",
        def.name,
        from.name()
    ))
}

/// `power` cedes `def` to `to` (checked by [`check`], accepted by `to`).
pub fn cede_kingdom(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    def: &KingdomDef,
    to: PowerId,
    text: &str,
    out: &mut Vec<Outcome>,
) {
    let Some(k) = state.political.kingdom(&def.id).cloned() else {
        return;
    };
    let held: BTreeSet<String> = k.components.clone();
    let mut o = Outcome::new(
        format!("{}.4", def.rule).as_str(),
        Kind::KingdomChanged,
        format!("{} cedes the {} to {}", power.name(), def.name, to.name()),
    )
    .power(power)
    .order(text);
    if def.id == "bavaria" && to == PowerId::Austria {
        // 11.4.4 EXCEPTION: handled as 11.4.3.2
        state.political.kingdoms.remove(&def.id);
        o = o.why(super::bavaria::tyrol_to(state, to));
        let (_, why) = cede(scenario, state, power, to, "bavaria", &held);
        o = o.why(why);
        o = super::bavaria::bavaria_to(scenario, state, power, to, o);
        o = o.why("11.4.4: ceded to Austria, the kingdom ceases to exist (11.4.3.2)");
        o = award(scenario, state, power, -def.pp_cede, o);
        out.push(o);
        return;
    }
    for c in &k.components {
        let (_, why) = cede(scenario, state, power, to, c, &held);
        o = o.why(why);
    }
    for w in transfer(scenario, state, def, power, to) {
        o = o.why(w);
    }
    o = o.why(format!(
        "{}: the marker, the free state flag and the kingdom's forces pass to {}",
        def.rule,
        to.name()
    ));
    let lost = if def.id == "poland" { def.pp_lose } else { def.pp_cede };
    o = award(scenario, state, power, -lost, o);
    out.push(o);
}

/// The kingdom, its loyalty and its forces change hands: each of its
/// minor nations passes to `to` by cession (3.43: its squadrons join
/// `to`'s nearest stack). Returns the why lines of that step.
fn transfer(scenario: &Scenario, state: &mut State, def: &KingdomDef, from: PowerId, to: PowerId) -> Vec<Why> {
    if let Some(k) = state.political.kingdoms.get_mut(&def.id) {
        k.controller = to;
        k.ceded = true;
    }
    if def.id == "poland" {
        state.political.polish_loyalty = Some(to);
    }
    let mut why = Vec::new();
    for n in &def.nations {
        if state.minors.contains_key(n) {
            why.extend(minor_changes_hands(
                scenario,
                state,
                n,
                Some(from),
                to,
                Handover::Cession,
            ));
        }
    }
    why
}

/// 11.1.4 (8.8.5): a Poland received by cession becomes conquered
/// territory of its controller: the free state and its loyalty marker go.
pub fn check_dissolve(state: &State, power: PowerId, def: &KingdomDef) -> Result<(), Rejection> {
    if def.id != "poland" {
        return Err(Rejection::new(
            "11.1.4",
            format!(
                "only a Poland received by cession is turned into conquered territory, not the {}",
                def.name
            ),
        ));
    }
    match state.political.kingdom(&def.id) {
        Some(k) if k.controller == power && k.ceded => Ok(()),
        Some(k) if k.controller == power => Err(Rejection::new("11.1.4", "Poland was not ceded to its controller")),
        _ => Err(Rejection::new(
            "11.1.4",
            format!("{} does not control Poland", power.name()),
        )),
    }
}

pub fn dissolve(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    def: &KingdomDef,
    text: &str,
    out: &mut Vec<Outcome>,
) {
    let Some(k) = state.political.kingdoms.remove(&def.id) else {
        return;
    };
    state.political.polish_loyalty = None;
    state.political.poland_conquered_by = None;
    out.push(
        Outcome::new(
            "11.1.4",
            Kind::KingdomEnded,
            format!("{} turns Poland into conquered territory", power.name()),
        )
        .power(power)
        .order(text)
        .why(format!(
            "8.8.5: {} become ceded or unceded provinces of whoever controls them (4.21); the Polish forces stay {}'s",
            names(scenario, &k.components),
            power.name()
        )),
    );
}

/// 11.1.4, 11.4.4: surrender terms that cede part of Poland or of the
/// Kingdom of Bavaria must cede all of it.
pub fn terms_refused(scenario: &Scenario, state: &State, loser: PowerId, provinces: &[String]) -> Option<Rejection> {
    if !super::enabled(state) {
        return None;
    }
    for (id, rule) in [("poland", "11.1.4"), ("bavaria", "11.4.4")] {
        let Some(k) = state.political.kingdom(id).filter(|k| k.controller == loser) else {
            continue;
        };
        let named = k.components.iter().filter(|c| provinces.contains(c)).count();
        if named > 0 && named < k.components.len() {
            let name = scenario.tables.political.kingdom(id).map_or(id, |d| d.name.as_str());
            // the first part of the kingdom the terms name
            let part = provinces.iter().find(|p| k.components.contains(*p))?;
            return Some(
                Rejection::new(
                    rule,
                    format!(
                        "the {name} is ceded only as a unit: cede all of {}",
                        names(scenario, &k.components)
                    ),
                )
                .at(Arg::Province(part.clone())),
            );
        }
    }
    None
}

/// After `loser` surrendered to `victor` with `provinces` ceded: a
/// Poland or Kingdom of Bavaria ceded whole passes to the victor
/// (11.1.4, 11.4.4); the Holy Roman Empire's peace conditions
/// (11.5.1.2, 11.5.1.3).
pub fn after_surrender(
    scenario: &Scenario,
    state: &mut State,
    loser: PowerId,
    victor: PowerId,
    provinces: &[String],
    mut o: Outcome,
) -> Outcome {
    if !super::enabled(state) {
        return o;
    }
    if loser == PowerId::Austria && state.political.hre_ended_by.insert(victor) {
        o = o.why(format!(
            "11.5.1.3 (house): Austria's surrender to {} is peace condition C.8: the Holy Roman Empire ends",
            victor.name()
        ));
    }
    if victor == PowerId::Austria && state.political.hre_ended_by.remove(&loser) {
        o = o.why(format!(
            "11.5.1.2 (house): {}'s surrender to Austria is peace condition C.9: its C.8 is cancelled",
            loser.name()
        ));
    }
    for id in ["poland", "bavaria"] {
        let Some(def) = scenario.tables.political.kingdom(id) else {
            continue;
        };
        let Some(k) = state.political.kingdom(id).filter(|k| k.controller == loser).cloned() else {
            continue;
        };
        if !k.components.iter().all(|c| provinces.contains(c)) {
            continue;
        }
        if id == "bavaria" && victor == PowerId::Austria {
            state.political.kingdoms.remove(id);
            o = o.why(super::bavaria::tyrol_to(state, victor));
            o = super::bavaria::bavaria_to(scenario, state, loser, victor, o);
            o = o.why("11.4.4: the Kingdom of Bavaria ceded to Austria ceases to exist (11.4.3.2)");
        } else {
            for w in transfer(scenario, state, def, loser, victor) {
                o = o.why(w);
            }
            o = o.why(format!(
                "{}.4: the {} is ceded whole to {}, with its marker{}",
                def.rule,
                def.name,
                victor.name(),
                if id == "poland" {
                    format!(
                        ", the Polish loyalty marker and {} Polish division(s)",
                        forces_left(state, &def.nations)
                    )
                } else {
                    String::new()
                }
            ));
        }
        let lost = if id == "poland" { def.pp_lose } else { def.pp_cede };
        o = award(scenario, state, loser, -lost, o);
    }
    o
}
