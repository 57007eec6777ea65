//! 5.122: an NPC allied with a Player Country can surrender too, forced
//! or because its ally surrenders it (`SURRENDER <npc> TO <power>`: "a
//! PC may surrender its allied NPC voluntarily", QA03).
//!
//! An Allied NPC has no chit and no Player Turn of its own (3.31): it
//! moves in its ally's turn, so its surrender, forced or ordered, is
//! resolved in its ally's Peace Step (5.1), before the ally's own. The trigger and
//! the terms are those of any surrender (`tables/surrender.toml`); the
//! ally loses no VP (QA03). The enforced peace with the victor cannot
//! stand beside an alliance that shares every war of the ally (3.31), so
//! the surrendering NPC leaves the alliance and is Inactive again (house
//! reading: the 2nd-edition 5.122 text is not in the seeds).

use super::Rejection;
use super::outcome::Outcome;
use super::war::surrender;
use crate::ids::PowerId;
use crate::orders::ast::Terms;
use crate::rules::Why;
use crate::scenario::Scenario;
use crate::state::{Control, State};

/// 5.122: every NPC allied with `ally` that must surrender now does so,
/// with the default terms.
pub fn allied_npcs(scenario: &Scenario, state: &mut State, ally: PowerId, out: &mut Vec<Outcome>) {
    for npc in PowerId::ALL {
        if state.power(npc).control != (Control::Allied { with: ally }) {
            continue;
        }
        let Some(victor) = surrender::due(scenario, state, npc) else {
            continue;
        };
        let terms = surrender::default_terms(scenario);
        out.extend(surrender_allied(scenario, state, ally, npc, victor, &terms));
    }
}

/// 5.122: whether `ally` may surrender `npc` to `to`: the NPC is allied
/// with it and at war with `to`.
pub fn may_surrender(state: &State, ally: PowerId, npc: PowerId, to: PowerId) -> Result<(), Rejection> {
    let refuse = |reason: String| Err(Rejection::new("5.122", reason));
    if state.power(npc).control != (Control::Allied { with: ally }) {
        return refuse(format!(
            "{} is not an NPC allied with {}: a Player Country surrenders only its allied NPCs",
            npc.name(),
            ally.name()
        ));
    }
    if !state.relations.at_war(npc, to) {
        return refuse(format!("{} is not at war with {}", npc.name(), to.name()));
    }
    Ok(())
}

/// 5.122: `ally` surrenders its allied `npc` to `to` on `terms` (checked
/// by [`may_surrender`]; `order` is the line that asked, for the outcome).
pub fn voluntary(
    scenario: &Scenario,
    state: &mut State,
    ally: PowerId,
    npc: PowerId,
    to: PowerId,
    terms: &Terms,
    order: &str,
) -> Vec<Outcome> {
    let mut outs = surrender_allied(scenario, state, ally, npc, to, terms);
    if let Some(first) = outs.first_mut() {
        if !order.is_empty() {
            first.order = Some(order.to_string());
        }
        first
            .why
            .push(Why::rule("5.122", format!("{} surrenders it voluntarily", ally.name())));
    }
    outs
}

/// The surrender of an allied NPC: that of any power (5.12), then the
/// alliance ends and the NPC is Inactive (3.31); the ally loses no VP
/// (QA03).
fn surrender_allied(
    scenario: &Scenario,
    state: &mut State,
    ally: PowerId,
    npc: PowerId,
    victor: PowerId,
    terms: &Terms,
) -> Vec<Outcome> {
    let mut outs = surrender::surrender(scenario, state, npc, victor, terms);
    state.relations.set_alliance(npc, ally, false);
    state.power_mut(npc).control = Control::Inactive;
    if let Some(first) = outs.first_mut() {
        first.why.push(Why::rule(
            "5.122",
            format!(
                "{} surrenders as an NPC allied with {}; its alliance ends and it is inactive (3.31)",
                npc.name(),
                ally.name()
            ),
        ));
    }
    outs
}
