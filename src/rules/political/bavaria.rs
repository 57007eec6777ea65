//! The Kingdom of Bavaria (11.4): conquered as a multi-district minor
//! country with Bavaria (Munich) the major district and Tyrol (Salzburg)
//! the minor one (11.4.3, 11.4.3.1, 11.4.3.2, 11.4.3.4), and what an
//! Austrian conquest or cession does with Tyrol. Creating it is in
//! `creation`, ceding it in `ceding`.
//!
//! House: a neutral Kingdom of Bavaria (11.4.3.3) never arises (La Guerre
//! has no Fiasco Zone and no other way for a free state to go neutral).

use super::kingdoms::{award, end, holder};
use crate::ids::{Nation, PowerId};
use crate::rules::Outcome;
use crate::rules::war::control::{Handover, minor_changes_hands, to_pool_arm};
use crate::scenario::tables_political::KingdomDef;
use crate::scenario::{Arm, Scenario};
use crate::state::{Garrison, State};

pub const ID: &str = "bavaria";
const TYROL: &str = "tyrol";

/// 11.4.3.2, 11.4.3.4: Munich or Tyrol changed hands.
pub fn check(scenario: &Scenario, state: &mut State, def: &KingdomDef, out: &mut Vec<Outcome>) {
    let Some(k) = state.political.kingdom(ID).cloned() else {
        return;
    };
    let munich = def.capital.clone().unwrap_or_else(|| ID.into());
    if let Some(by) = holder(scenario, state, &munich).filter(|h| *h != k.controller) {
        conquered(scenario, state, def, k.controller, by, out);
        return;
    }
    let tyrol = holder(scenario, state, TYROL);
    if tyrol != Some(k.controller) {
        // 11.4.3.4, 11.4.3.1
        let why = match tyrol {
            Some(PowerId::Austria) => {
                "11.4.3.1: Austria took Tyrol on its own: it is an unceded Austrian province again".to_string()
            }
            Some(c) => format!(
                "11.4.3.1: {} took Tyrol on its own: a ceded province under its control",
                c.name()
            ),
            None => "Tyrol is held by nobody".to_string(),
        };
        if let Some(o) = end(
            state,
            def,
            "11.4.3.4",
            "Tyrol is no longer under the same control as Bavaria".to_string(),
        ) {
            // 11.4.5: no political points for Tyrol alone
            out.push(o.why(why).why("11.4.5: no political points for Tyrol alone"));
        }
    }
}

/// 11.4.3.2: `by` captured Munich: the kingdom ends; Bavaria becomes a
/// conquered minor country under `by`; Tyrol goes back to Austria as an
/// unceded province if `by` is Austria, else becomes `by`'s ceded
/// province. 11.4.5: +1 to the conqueror, -1 to the loser.
fn conquered(
    scenario: &Scenario,
    state: &mut State,
    def: &KingdomDef,
    old: PowerId,
    by: PowerId,
    out: &mut Vec<Outcome>,
) {
    let Some(mut o) = end(state, def, "11.4.3.2", format!("{} captured Munich", by.name())) else {
        return;
    };
    o.summary = format!("{} conquers the Kingdom of Bavaria", by.name());
    o = o.power(by);
    o = o.why(tyrol_to(state, by));
    o = bavaria_to(scenario, state, old, by, o);
    o = award(scenario, state, by, def.pp_conquer, o);
    o = award(scenario, state, old, -def.pp_lose, o);
    out.push(o);
}

/// Bavaria becomes `to`'s conquered minor country (its unbuilt forces;
/// its corps in play stay with `from` until destroyed, 3.41).
pub fn bavaria_to(scenario: &Scenario, state: &mut State, from: PowerId, to: PowerId, mut o: Outcome) -> Outcome {
    for w in minor_changes_hands(scenario, state, ID, Some(from), to, Handover::Conquest) {
        o = o.why(w);
    }
    o.why(format!("Bavaria is a conquered minor country under {}", to.name()))
}

/// 11.4.3.2: Tyrol to Austria (unceded: the foreign garrison goes home)
/// or to `to` as a ceded province (its garrison replaces the old one).
pub fn tyrol_to(state: &mut State, to: PowerId) -> String {
    let old = state.provinces.get_mut(TYROL).and_then(|p| p.garrison.take());
    if let Some(g) = &old {
        to_pool_arm(state, &g.nation, Arm::Infantry);
    }
    if to == PowerId::Austria {
        if let Some(p) = state.provinces.get_mut(TYROL) {
            p.controller = Some(Nation::Major(PowerId::Austria));
        }
        return "Tyrol is reincorporated into Austria as an unceded province".into();
    }
    let nation = Nation::Major(to);
    let pool = &mut state.power_mut(to).pool.infantry;
    let garrisoned = *pool > 0;
    if garrisoned {
        *pool -= 1;
    }
    if let Some(p) = state.provinces.get_mut(TYROL) {
        p.controller = Some(if garrisoned {
            nation.clone()
        } else {
            Nation::Major(PowerId::Austria)
        });
        p.garrison = garrisoned.then_some(Garrison::of(nation));
    }
    if garrisoned {
        format!(
            "Tyrol becomes a ceded province of {}, garrisoned from its pool",
            to.name()
        )
    } else {
        format!(
            "{} has no infantry to garrison Tyrol (2.23): it returns to Austria",
            to.name()
        )
    }
}
