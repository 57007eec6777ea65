//! EiA optional naval rules (seed 003, 12.2.x), switched on by the game
//! option `naval` (`state.options`). What this module changes in the
//! Naval Phase of `rules::war::naval`:
//!
//! - 12.2.9 blockades: running them (12.2.9.1–.2, replacing the house d10
//!   `blockade_run_target`), blockade battles (12.2.6.2) and upkeep
//!   (12.2.9.3), in `naval_option::blockade`.
//! - 12.2.6.1.4.1 no "Spanish Armada": a side subtracts one from its
//!   naval combat roll for every fleet (squadron) after the second.
//! - 12.2.1 crossing arrows into enemy land: the stack must begin its
//!   move next to the arrow (`movement`), fights on the "River" line
//!   (`river_line`, in `battle`), and an invader beaten in the turn it
//!   crossed surrenders instead of retreating (`battle`). Interdiction by
//!   enemy fleets (movement and supply) holds with or without the option
//!   (`arrows.rs`).
//!
//! The EiA combat (tactical chits, morale, rounds, chase, disabled ships
//! and hulks), Nelson, port raids, refits and the West Indies are in
//! `naval_option`; blockade battles (with the covering SORTIE) and port
//! raids (RAID) use it.

use crate::scenario::Scenario;
use crate::state::{State, UnitKey};
use std::collections::BTreeMap;

/// The option id in `game.toml` / `state.options`.
pub const ID: &str = "naval";

pub fn enabled(state: &State) -> bool {
    state.options.contains(ID)
}

/// Whether a corps that came from `from` into `province` crossed a
/// crossing arrow to do so (12.2.1), not a land border.
pub fn crossed_arrow(scenario: &Scenario, from: &str, province: &str) -> bool {
    from != province && !scenario.map.adjacent(from, province) && scenario.map.arrow(from, province).is_some()
}

/// 12.2.1: "If any enemy corps are present on the opposite shore, the
/// 'River' line of the CRT would be used during the first day's combat."
/// Whether the battle in `province` is fought on that line: the option
/// is on and every attacking corps crossed an arrow into `province` this
/// turn (`came_from`; house: a force that also attacks over land is not
/// an assault across the water). The defending side of a battle always
/// has corps (`battle::Battle::join`), so the enemy corps are there.
pub fn river_line(
    scenario: &Scenario,
    state: &State,
    province: &str,
    attackers: &[UnitKey],
    came_from: &BTreeMap<UnitKey, String>,
) -> bool {
    enabled(state)
        && !attackers.is_empty()
        && attackers
            .iter()
            .all(|k| came_from.get(k).is_some_and(|c| crossed_arrow(scenario, c, province)))
}

/// 12.2.6.1.4.1: minus one per squadron after the second.
pub fn size_penalty(squadrons: usize) -> i32 {
    -(squadrons.saturating_sub(2) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_fleets_take_minus_two() {
        // rules-notes NAV-5
        assert_eq!(size_penalty(4), -2);
        assert_eq!(size_penalty(2), 0);
        assert_eq!(size_penalty(1), 0);
    }
}
