//! Kingdom garrisons (11.1.2, 11.2.2, 11.3.2.3, 11.4.2, 11.5.2.3, 11.6.2).
//!
//! La Guerre forbids minor units as garrisons (3.41: "they cannot be used
//! as Garrisons"). The political option is the exception the seed makes
//! for a created kingdom: "Polish garrison infantry factors may be placed
//! anywhere within Polish territory" (11.1.2), and the like for Italy
//! (11.2.2), Bavaria with the Tyrol (11.4.2) and the Ottoman Empire
//! (11.6.2); Westphalia (11.3.2.3) and the Confederation of the Rhine
//! (11.5.2.3) say which minor's infantry may garrison which part. House
//! reading (`tables/political.toml` `[[kingdom.garrison]]`, with its
//! provenance): while the kingdom exists under a power, an infantry
//! division of a nation its row names, commanded by that power, may
//! garrison a component of the kingdom that the row names (all of them
//! when it names none), and only while the row's `needs` component is
//! still the kingdom's (the errata of 11.3.2.3 and 11.5.2.3). Every
//! province is held by a garrison already, so such a division relieves
//! the power's own garrison, which goes back into the corps
//! (`rules::war::siege::garrison`). The garrison stays its commanding
//! power's ([`crate::state::Garrison::held_by`]), as a corps kept after a
//! conquest stays with its keeper (3.41).

use crate::ids::{Nation, PowerId};
use crate::scenario::Scenario;
use crate::state::State;

/// The section under which an infantry division of `nation` may garrison
/// `province` for `power` now, if any.
pub fn allowed(scenario: &Scenario, state: &State, power: PowerId, nation: &Nation, province: &str) -> Option<String> {
    if !super::enabled(state) {
        return None;
    }
    let Nation::Minor(m) = nation else {
        return None;
    };
    if state.commanding_power(nation) != Some(power) {
        return None;
    }
    scenario.tables.political.kingdoms.iter().find_map(|def| {
        let k = state.political.kingdom(&def.id).filter(|k| k.controller == power)?;
        if !k.components.contains(province) {
            return None;
        }
        def.garrisons
            .iter()
            .find(|g| {
                g.nation == *m
                    && (g.provinces.is_empty() || g.provinces.iter().any(|p| p == province))
                    && g.needs.as_ref().is_none_or(|n| k.components.contains(n))
            })
            .map(|g| g.rule.clone())
    })
}
