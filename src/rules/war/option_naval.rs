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
//!   move next to the arrow (`movement`), and an invader beaten in the
//!   turn it crossed surrenders instead of retreating (`battle`).
//!
//! The EiA combat (morale, rounds, chase, disabled ships and hulks) is in
//! `naval_option`; blockade battles (with the covering SORTIE) and port
//! raids (RAID) use it. Not yet: open sea combat with tactical chits,
//! Nelson, hulk capture and refits, the West Indies.

use crate::state::State;

/// The option id in `game.toml` / `state.options`.
pub const ID: &str = "naval";

pub fn enabled(state: &State) -> bool {
    state.options.contains(ID)
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
