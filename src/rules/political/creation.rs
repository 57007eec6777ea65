//! Creating a kingdom in the New Political Combinations Step (11.1.1,
//! 11.2.1, 11.3.1, 11.4.1, 11.5.1, 11.6.1) and adding to one
//! (11.1.1.1). Each kingdom's conditions, checked the same way by the
//! order checker and the engine.

use super::kingdoms::{held, names, pname};
use crate::ids::PowerId;
use crate::rules::Rejection;
use crate::scenario::Scenario;
use crate::scenario::tables_political::KingdomDef;
use crate::state::State;
use std::collections::BTreeSet;

/// Whether `power` may declare `def` now, and with which components
/// (`announced`: the provinces named in the order, Poland only).
pub fn check(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    def: &KingdomDef,
    announced: &[String],
) -> Result<BTreeSet<String>, Rejection> {
    let rule = format!("{}.1", def.rule);
    if def.id == "two_sicilies" {
        // 11.7: one minor country whenever the option is used
        return Err(Rejection::new(
            "11.7",
            "the Two Sicilies are never declared: Naples and Sicily are one minor country under this option",
        ));
    }
    if let Some(k) = state.political.kingdom(&def.id) {
        // 11.5.1.5, 11.6.1.3: not while its marker is on the map
        let r = match def.id.as_str() {
            "rhine" => "11.5.1.5",
            "ottoman" => "11.6.1.3",
            _ => rule.as_str(),
        };
        return Err(Rejection::new(
            r,
            format!("the {} already exists under {}'s flag", def.name, k.controller.name()),
        ));
    }
    if !def.creators.is_empty() && !def.creators.contains(&power) {
        let who: Vec<&str> = def.creators.iter().map(|p| p.name()).collect();
        return Err(Rejection::new(
            rule.as_str(),
            format!("only {} may create the {}", who.join(", "), def.name),
        ));
    }
    let mine = held(scenario, state, power, def);
    match def.id.as_str() {
        "poland" => poland(scenario, state, power, def, &mine, announced),
        "rhine" => {
            whole(def, announced)?;
            rhine(scenario, state, power, def, mine)
        }
        "ottoman" => {
            whole(def, announced)?;
            // 11.6.1: any six of the eight, every one controlled included
            if mine.len() < 6 {
                return Err(Rejection::new(
                    "11.6.1",
                    format!(
                        "{} controls {} of the Ottoman Empire's eight minor countries ({}); six are needed",
                        power.name(),
                        mine.len(),
                        names(scenario, &mine)
                    ),
                ));
            }
            Ok(mine)
        }
        _ => {
            whole(def, announced)?;
            // 11.2.1, 11.3.1, 11.4.1: every component
            let missing: Vec<String> = def
                .components
                .iter()
                .filter(|c| !mine.contains(&c.id))
                .map(|c| c.id.clone())
                .collect();
            if !missing.is_empty() {
                return Err(uncontrolled(
                    &rule,
                    power,
                    format!(
                        "{}: the {} needs all of {}",
                        names(scenario, &missing),
                        def.name,
                        names(scenario, def.components.iter().map(|c| &c.id))
                    ),
                ));
            }
            Ok(mine)
        }
    }
}

/// Only Poland's provinces are announced; the other kingdoms take every
/// component their creator controls (11.5.1, 11.6.1) or need all.
fn whole(def: &KingdomDef, announced: &[String]) -> Result<(), Rejection> {
    if announced.is_empty() {
        Ok(())
    } else {
        Err(Rejection::new(
            format!("{}.1", def.rule).as_str(),
            format!(
                "the {} is made of every component its creator controls; only Poland's provinces are announced (11.1.1.1)",
                def.name
            ),
        ))
    }
}

/// 11.1.1: two or more Polish provinces including Masovia (Warsaw), and
/// no other major power holding the Polish loyalty marker; 11.1.1.1: the
/// provinces are announced (none named: every one controlled).
fn poland(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    def: &KingdomDef,
    mine: &BTreeSet<String>,
    announced: &[String],
) -> Result<BTreeSet<String>, Rejection> {
    if let Some(h) = state.political.polish_loyalty.filter(|h| *h != power) {
        return Err(Rejection::new(
            "11.1.1",
            format!("{} holds the Polish loyalty marker", h.name()),
        ));
    }
    let chosen: BTreeSet<String> = if announced.is_empty() {
        mine.clone()
    } else {
        announced.iter().cloned().collect()
    };
    polish_and_held(scenario, power, def, mine, &BTreeSet::new(), &chosen)?;
    let capital = def.capital.as_deref().unwrap_or("masovia");
    if !chosen.contains(capital) {
        return Err(Rejection::new(
            "11.1.1",
            format!(
                "Poland needs {} (Warsaw, its capital), controlled by its creator",
                pname(scenario, capital)
            ),
        ));
    }
    if chosen.len() < 2 {
        return Err(Rejection::new(
            "11.1.1",
            "Poland needs two or more Polish provinces including Masovia (Warsaw)",
        ));
    }
    Ok(chosen)
}

/// 11.5.1: five of the six minor countries with corps plus three other
/// components, every one controlled incorporated; 11.5.1.2 / 11.5.1.3:
/// the Holy Roman Empire (peace condition C.8 against Austria).
fn rhine(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    def: &KingdomDef,
    mine: BTreeSet<String>,
) -> Result<BTreeSet<String>, Rejection> {
    let ended = &state.political.hre_ended_by;
    if power == PowerId::Austria && !ended.is_empty() {
        let by: Vec<&str> = ended.iter().map(|p| p.name()).collect();
        return Err(Rejection::new(
            "11.5.1.2",
            format!(
                "peace condition C.8 was applied against Austria by {} and not cancelled by C.9",
                by.join(", ")
            ),
        ));
    }
    if power != PowerId::Austria && ended.is_empty() {
        return Err(Rejection::new(
            "11.5.1.3",
            "no major power has applied peace condition C.8 against Austria (the Holy Roman Empire stands)",
        ));
    }
    // 11.5.1: "at least five of the six minor countries with corps plus
    // any three other minor countries and/or provinces": a sixth with
    // corps is one of the three others, so eight in all, five with corps
    let corps = mine.iter().filter(|c| def.with_corps(c)).count();
    if corps < 5 || mine.len() < 5 + 3 {
        return Err(Rejection::new(
            "11.5.1",
            format!(
                "{} controls {corps} of the six minor countries with corps and {} components in all ({}); five with corps plus three others are needed",
                power.name(),
                mine.len(),
                names(scenario, &mine)
            ),
        ));
    }
    Ok(mine)
}

/// 11.1.1.1: later, the controller may add Polish provinces it controls.
pub fn check_add(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    def: &KingdomDef,
    provinces: &[String],
) -> Result<(), Rejection> {
    if def.id != "poland" {
        return Err(Rejection::new(
            format!("{}.1", def.rule).as_str(),
            format!(
                "territory joins the {} by itself at the New Political Combinations Step; only Poland's controller chooses (11.1.1.1)",
                def.name
            ),
        ));
    }
    let Some(k) = state.political.kingdom(&def.id).filter(|k| k.controller == power) else {
        return Err(uncontrolled("11.1.1.1", power, "Poland"));
    };
    let mine = held(scenario, state, power, def);
    polish_and_held(scenario, power, def, &mine, &k.components, provinces)
}

/// 11.1.1.1: every province named is a Polish ("P") province, not in
/// Poland `already`, that `power` controls.
fn polish_and_held<'a>(
    scenario: &Scenario,
    power: PowerId,
    def: &KingdomDef,
    mine: &BTreeSet<String>,
    already: &BTreeSet<String>,
    provinces: impl IntoIterator<Item = &'a String>,
) -> Result<(), Rejection> {
    for p in provinces {
        if !def.has(p) {
            return Err(Rejection::new(
                "11.1.1.1",
                format!("{} is not a Polish (\"P\") province", pname(scenario, p)),
            )
            .at(crate::orders::ast::Arg::Province(p.clone())));
        }
        if already.contains(p) {
            return Err(
                Rejection::new("11.1.1.1", format!("{} is already part of Poland", pname(scenario, p)))
                    .at(crate::orders::ast::Arg::Province(p.clone())),
            );
        }
        if !mine.contains(p) {
            return Err(
                uncontrolled("11.1.1.1", power, pname(scenario, p)).at(crate::orders::ast::Arg::Province(p.clone()))
            );
        }
    }
    Ok(())
}

/// The one refusal "`power` does not control `what`".
fn uncontrolled(rule: &str, power: PowerId, what: impl std::fmt::Display) -> Rejection {
    Rejection::new(rule, format!("{} does not control {what}", power.name()))
}
