//! 5.122: an NPC allied with a Player Country can surrender too.
//!
//! An Allied NPC has no chit and no Player Turn of its own (3.31): it
//! moves in its ally's turn, so its forced surrender is found in its
//! ally's Peace Step (5.1), before the ally's own. The trigger and
//! the terms are those of any surrender (`tables/surrender.toml`); the
//! ally loses no VP (QA03). The enforced peace with the victor cannot
//! stand beside an alliance that shares every war of the ally (3.31), so
//! the surrendering NPC leaves the alliance and is Inactive again (house
//! reading: the 2nd-edition 5.122 text is not in the seeds).

use super::outcome::Outcome;
use super::war::surrender;
use crate::ids::PowerId;
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
        let mut outs = surrender::surrender(scenario, state, npc, victor, &terms);
        // 5.122: the alliance ends and the NPC is Inactive (3.31)
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
        out.extend(outs);
    }
}
