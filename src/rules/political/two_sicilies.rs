//! The Kingdom of the Two Sicilies (11.7): under this option Naples and
//! Sicily are one multi-district minor country, Naples the major district
//! (the minor power of Naples and Brindisi on this map, conquered as 3.41
//! says) and Sicily the secondary one. Nothing declares it: while one
//! major power controls both districts their money is combined and
//! doubled (11.7.2) into the kingdom's treasury (`treasury`); controlled
//! by different powers, each district pays its controller undoubled, as
//! any province (4.21).
//!
//! 11.7.1: the Naples corps follow the controller of Naples (the minor
//! power's controller, 3.41). The Naples fleet following the controller of
//! Sicily instead is not implemented: squadrons follow their nation's
//! controller throughout the naval rules.

use super::kingdoms::holder;
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::scenario::tables_political::KingdomDef;
use crate::state::{Kingdom, State};

pub const ID: &str = "two_sicilies";

/// Keep the kingdom's record: present, under the one controller of every
/// district, or absent while the districts are split or neutral.
pub fn check(scenario: &Scenario, state: &mut State, def: &KingdomDef, out: &mut Vec<Outcome>) {
    let holders: Vec<_> = def.components.iter().map(|c| holder(scenario, state, &c.id)).collect();
    let one = holders
        .first()
        .copied()
        .flatten()
        .filter(|h| holders.iter().all(|x| *x == Some(*h)));
    let now = state.political.kingdom(ID).map(|k| k.controller);
    if one == now {
        return;
    }
    match one {
        Some(p) => {
            state.political.kingdoms.insert(
                ID.into(),
                Kingdom {
                    controller: p,
                    components: def.components.iter().map(|c| c.id.clone()).collect(),
                    created: state.turn(),
                    gold: 0,
                    ceded: false,
                },
            );
            out.push(
                Outcome::new(
                    "11.7.2",
                    Kind::KingdomChanged,
                    format!("{} controls the whole Kingdom of the Two Sicilies", p.name()),
                )
                .power(p)
                .why("Naples and Sicily under one major power: their money is combined and doubled (8.2.3)"),
            );
        }
        None => {
            if let Some(k) = state.political.kingdoms.remove(ID) {
                out.push(
                    Outcome::new(
                        "11.7.2",
                        Kind::KingdomChanged,
                        "Naples and Sicily are no longer under one major power",
                    )
                    .power(k.controller)
                    .why("each district's money goes to its own controller, not doubled"),
                );
            }
        }
    }
}
