//! The kingdoms made of separate minor countries: the Kingdom of Italy,
//! the Kingdom of Westphalia, the Confederation of the Rhine and the
//! Ottoman Empire. Their parts are still conquered one by one (11.2.3,
//! 11.3.3, 11.5.3, 11.6.3); the kingdom lives while its controller holds
//! one component with corps, and ends when the last goes (11.2.3.1,
//! 11.3.3.1, 11.5.3.1, 11.6.3.1). Territory its controller gains that
//! could be part of it joins at the next New Political Combinations Step
//! (11.2.1.2, 11.3.1.2, 11.5.1.4, 11.6.1.2).
//!
//! House readings: a component leaves the kingdom when its controller no
//! longer controls it (4.21); the home provinces that "return" to their
//! home power (Illyria to Austria, Magdeburg to Prussia, Tyrol to
//! Austria) do so by 4.21 itself: a home province without a foreign
//! garrison is its home power's; one a foreign garrison holds is
//! "otherwise controlled". Powers never leave a La Guerre game, so the
//! fallback to the holder of Austria / Brandenburg never arises. No die is
//! rolled for the Fiasco Zone (11.2.3.2, 11.3.3.2, 11.5.3.2, 11.6.3.2):
//! La Guerre has no Political Status Display, so no power is ever in it
//! and there is no economic loss number (the seed's NOTE: no rolls).

use super::kingdoms::{end, holder, names, pname};
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::scenario::tables_political::KingdomDef;
use crate::state::State;

/// The kingdoms this file keeps.
pub const KINGDOMS: [&str; 4] = ["italy", "westphalia", "rhine", "ottoman"];

/// The section of a kingdom's conquest clause (`11.2.3`).
fn conquest_rule(def: &KingdomDef) -> String {
    format!("{}.3", def.rule)
}

/// Components lost by the controller leave; the kingdom ends when no
/// component with corps is left (after every phase).
pub fn check(scenario: &Scenario, state: &mut State, def: &KingdomDef, out: &mut Vec<Outcome>) {
    let Some(k) = state.political.kingdom(&def.id).cloned() else {
        return;
    };
    let rule = conquest_rule(def);
    let lost: Vec<String> = k
        .components
        .iter()
        .filter(|c| holder(scenario, state, c) != Some(k.controller))
        .cloned()
        .collect();
    let kept_corps = k.components.iter().any(|c| !lost.contains(c) && def.with_corps(c));
    if !kept_corps {
        let mut why = format!(
            "{} holds no component minor country with corps of it any more",
            k.controller.name()
        );
        if !lost.is_empty() {
            why.push_str(&format!(" (lost: {})", names(scenario, &lost)));
        }
        if let Some(mut o) = end(state, def, &format!("{rule}.1"), why) {
            o = o.why("its parts are separate again, neutral or under whoever controls them (4.21)");
            for h in homes_returning(scenario, state, def, &k.components) {
                o = o.why(h);
            }
            out.push(o);
        }
        return;
    }
    if lost.is_empty() {
        return;
    }
    if let Some(kk) = state.political.kingdoms.get_mut(&def.id) {
        for c in &lost {
            kk.components.remove(c);
        }
    }
    out.push(
        Outcome::new(
            rule.as_str(),
            Kind::KingdomChanged,
            format!("{} no longer part of the {}", names(scenario, &lost), def.name),
        )
        .power(k.controller)
        .why(format!(
            "conquered, ceded or lost by {}; the {} lives on while it holds a component with corps",
            k.controller.name(),
            def.name
        )),
    );
}

/// 11.2.3.1, 11.3.3.1, 11.5.3.1: where the home provinces of a dissolved
/// kingdom stand now.
fn homes_returning(
    scenario: &Scenario,
    state: &State,
    def: &KingdomDef,
    components: &std::collections::BTreeSet<String>,
) -> Vec<String> {
    let mut v = Vec::new();
    for c in components {
        let Some(p) = scenario.map.province(c) else { continue };
        let crate::map::Owner::Major(home) = p.owner else {
            continue;
        };
        // 11.5.3.1: not while the Kingdom of Westphalia / Bavaria lives on
        let other = state
            .political
            .kingdoms
            .iter()
            .any(|(id, k)| id != &def.id && k.components.contains(c));
        if other {
            v.push(format!("{} stays in the kingdom that also holds it", p.name));
            continue;
        }
        match holder(scenario, state, c) {
            Some(h) if h == home => v.push(format!("{} returns to {} control", p.name, home.adjective())),
            Some(h) => v.push(format!("{} stays under {} (otherwise controlled)", p.name, h.name())),
            None => v.push(format!("{} is held by nobody", p.name)),
        }
    }
    v
}

/// 11.2.1.2, 11.3.1.2, 11.5.1.4, 11.6.1.2: territory the controller
/// controls that could be part of the kingdom must be added (at the New
/// Political Combinations Step).
pub fn must_add(scenario: &Scenario, state: &mut State, def: &KingdomDef, out: &mut Vec<Outcome>) {
    let Some(k) = state.political.kingdom(&def.id).cloned() else {
        return;
    };
    let add: Vec<String> = def
        .components
        .iter()
        .map(|c| c.id.clone())
        .filter(|c| !k.components.contains(c) && holder(scenario, state, c) == Some(k.controller))
        .collect();
    if add.is_empty() {
        return;
    }
    if let Some(kk) = state.political.kingdoms.get_mut(&def.id) {
        kk.components.extend(add.iter().cloned());
    }
    let rule = match def.id.as_str() {
        "italy" => "11.2.1.2",
        "westphalia" => "11.3.1.2",
        "rhine" => "11.5.1.4",
        _ => "11.6.1.2",
    };
    let mut o = Outcome::new(
        rule,
        Kind::KingdomChanged,
        format!("{} join the {}", names(scenario, &add), def.name),
    )
    .power(k.controller)
    .why(format!(
        "{} controls {}: territory that could be part of the {} must be added",
        k.controller.name(),
        add.iter().map(|a| pname(scenario, a)).collect::<Vec<_>>().join(", "),
        def.name
    ));
    // 11.5.2.1: a joining minor with corps brings its corps counter
    for w in super::forces::bring_counters(scenario, state, def) {
        o = o.why(w);
    }
    out.push(o);
}
