//! Poland, the Grand Duchy of Warsaw (11.1): the Polish loyalty marker
//! (11.1.1.2), its conquest by holding Warsaw (11.1.3, 11.1.3.1–11.1.3.3)
//! and the political points of its loss (11.1.5). Creating it is in
//! `creation`, ceding it in `ceding`.
//!
//! House readings (La Guerre): "unbesieged occupation of Warsaw for a
//! month" is Masovia controlled (4.21) by another major power when a phase
//! ends (control changes only by an unbesieged garrison, 5.7); ceded and
//! unceded provinces (11.1.3.1) follow from 4.21 control by themselves
//! (a home province without a foreign garrison is its home power's).
//! A neutral Poland (11.1.3.2) never arises: La Guerre has no Fiasco Zone
//! and no other way for a free state to go neutral.

use super::kingdoms::{award, end, forces_left, holder, pname};
use crate::ids::PowerId;
use crate::rules::war::control::{Handover, minor_changes_hands};
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::scenario::tables_political::KingdomDef;
use crate::state::State;

pub const ID: &str = "poland";

/// 11.1.3, 11.1.3.2, 11.1.3.3: what holding Polish territory changed.
pub fn check(scenario: &Scenario, state: &mut State, def: &KingdomDef, out: &mut Vec<Outcome>) {
    release_loyalty(state, def, out);
    let Some(k) = state.political.kingdom(ID).cloned() else {
        return;
    };
    let capital = def.capital.clone().unwrap_or_else(|| "masovia".into());
    let at_warsaw = holder(scenario, state, &capital);
    if at_warsaw != Some(k.controller) {
        conquered(scenario, state, def, k.controller, at_warsaw, out);
        return;
    }
    // 11.1.3.2: a Polish province other than Masovia is conquered on its own
    for p in &k.components {
        let h = holder(scenario, state, p);
        if h == Some(k.controller) {
            continue;
        }
        if let Some(kk) = state.political.kingdoms.get_mut(ID) {
            kk.components.remove(p);
        }
        out.push(
            Outcome::new(
                "11.1.3.2",
                Kind::KingdomChanged,
                format!("{} is no longer part of Poland", pname(scenario, p)),
            )
            .power(k.controller)
            .why(match h {
                Some(c) => format!("held by {} (10.2.2: conquered on its own)", c.name()),
                None => "held by nobody".to_string(),
            }),
        );
    }
}

/// 11.1.3: Warsaw is held by `by` (or nobody): Poland is conquered.
fn conquered(
    scenario: &Scenario,
    state: &mut State,
    def: &KingdomDef,
    old: PowerId,
    by: Option<PowerId>,
    out: &mut Vec<Outcome>,
) {
    let who = by.map_or_else(|| "nobody".to_string(), |c| c.name().to_string());
    let Some(mut o) = end(
        state,
        def,
        "11.1.3",
        format!("Warsaw (Masovia) is held by {who}, not by {}", old.name()),
    ) else {
        return;
    };
    o.summary = format!("Poland is conquered: Warsaw is held by {who}");
    o = o.why("11.1.3.1: its provinces are now ceded or unceded provinces of whoever controls them (4.21)");
    // 11.1.5: +1 to conquer (capture Warsaw), -1 to lose it
    o = award(scenario, state, old, -def.pp_lose, o);
    if let Some(c) = by {
        o = award(scenario, state, c, def.pp_conquer, o).power(c);
    }
    let left = forces_left(state, &def.nations);
    if left > 0 && by.is_some() {
        // 11.1.3.3: the Polish forces stay with the former controller
        state.political.polish_loyalty = Some(old);
        state.political.poland_conquered_by = by;
        o = o.why(format!(
            "11.1.3.3: {left} Polish division(s) remain, still {}'s with the Polish loyalty marker; {who} may not declare Poland until they are gone or peace is made",
            old.name()
        ));
    } else {
        state.political.polish_loyalty = None;
        state.political.poland_conquered_by = None;
        for n in &def.nations {
            match by {
                Some(c) if state.minors.contains_key(n) => {
                    for w in minor_changes_hands(scenario, state, n, Some(old), c, Handover::Conquest) {
                        o = o.why(w);
                    }
                }
                _ => {
                    if let Some(m) = state.minors.get_mut(n) {
                        m.controller = None;
                    }
                }
            }
        }
        o = o.why("no Polish forces remain: nobody holds the Polish loyalty marker");
    }
    out.push(o);
}

/// 11.1.3.3: the former controller gives up the loyalty marker once the
/// Polish army is gone or it has made peace with the conqueror.
fn release_loyalty(state: &mut State, def: &KingdomDef, out: &mut Vec<Outcome>) {
    let (Some(h), Some(c)) = (state.political.polish_loyalty, state.political.poland_conquered_by) else {
        return;
    };
    let gone = forces_left(state, &def.nations) == 0;
    let peace = !state.relations.at_war(h, c);
    if !gone && !peace {
        return;
    }
    state.political.polish_loyalty = None;
    state.political.poland_conquered_by = None;
    for n in &def.nations {
        if let Some(m) = state.minors.get_mut(n) {
            m.controller = None;
        }
    }
    out.push(
        Outcome::new(
            "11.1.3.3",
            Kind::KingdomChanged,
            format!("{} gives up the Polish loyalty marker", h.name()),
        )
        .power(h)
        .why(if gone {
            "the last Polish army factors are lost".to_string()
        } else {
            format!("{} and {} are at peace", h.name(), c.name())
        })
        .why(format!(
            "{} may declare Poland again at a later New Political Combinations Step (11.1.1)",
            c.name()
        )),
    );
}
