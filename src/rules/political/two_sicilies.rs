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
//! power's controller, 3.41); while Naples and Sicily are under different
//! major powers the Naples squadrons are held (`Squadron::held_by`) by
//! the controller of Sicily (the table's `fleet` district), and return to
//! the Naples controller once the districts are united or Sicily is
//! nobody's.

use super::kingdoms::holder;
use crate::ids::Nation;
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::scenario::tables_political::KingdomDef;
use crate::state::{Kingdom, State};

pub const ID: &str = "two_sicilies";

/// Keep the kingdom's record: present, under the one controller of every
/// district, or absent while the districts are split or neutral.
pub fn check(scenario: &Scenario, state: &mut State, def: &KingdomDef, out: &mut Vec<Outcome>) {
    fleet(scenario, state, def, out);
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

/// 11.7.1: who holds the kingdom's squadrons: the controller of the
/// fleet district when it is a major power other than the controller of
/// the minor power (Naples); else nobody (they follow their nation).
fn fleet(scenario: &Scenario, state: &mut State, def: &KingdomDef, out: &mut Vec<Outcome>) {
    let Some(district) = def.components.iter().find(|c| c.fleet) else {
        return;
    };
    let fleet_holder = holder(scenario, state, &district.id);
    for m in &def.nations {
        let nation = Nation::Minor(m.clone());
        let minor_controller = state.commanding_power(&nation);
        let held = fleet_holder.filter(|h| minor_controller.is_some_and(|c| c != *h));
        for s in state.squadrons.iter_mut().filter(|s| s.nation == nation) {
            if s.held_by == held {
                continue;
            }
            s.held_by = held;
            let summary = match held {
                Some(h) => format!(
                    "{} takes command of {}",
                    h.name(),
                    crate::state::UnitKey::squadron(s.nation.clone(), s.number).name(scenario)
                ),
                None => format!(
                    "{} follows {}'s controller again",
                    crate::state::UnitKey::squadron(s.nation.clone(), s.number).name(scenario),
                    crate::state::nation_name(scenario, &nation)
                ),
            };
            let mut o = Outcome::new("11.7.1", Kind::KingdomChanged, summary).why(format!(
                "the fleet follows the controller of {} while Naples and Sicily are under different major powers",
                super::kingdoms::pname(scenario, &district.id)
            ));
            if let Some(p) = held.or(minor_controller) {
                o = o.power(p);
            }
            out.push(o);
        }
    }
}
