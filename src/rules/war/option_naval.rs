//! EiA optional naval rules (seed 003, 12.2.x), switched on by the game
//! option `naval` (`state.options`). What this module changes in the
//! Naval Phase of `rules::war::naval`:
//!
//! - 12.2.9.1 running a blockade: one six-sided die, the stack slips past
//!   on 2 or less; one is subtracted when it transports land forces
//!   (replaces the house d10 `blockade_run_target`).
//! - 12.2.6.1.4.1 no "Spanish Armada": a side subtracts one from its
//!   naval combat roll for every fleet (squadron) after the second.
//! - 12.2.1 crossing arrows into enemy land: the stack must begin its
//!   move next to the arrow (`movement`), and an invader beaten in the
//!   turn it crossed surrenders instead of retreating (`battle`).
//!
//! Not yet: tactical chits, morale, the general chase, hulks, the West
//! Indies and blockade upkeep (12.2.6–12.2.9.3).

use crate::state::State;

/// The option id in `game.toml` / `state.options`.
pub const ID: &str = "naval";

pub fn enabled(state: &State) -> bool {
    state.options.contains(ID)
}

/// 12.2.9.1: the die, the highest total that slips past, and the
/// modifier for a stack carrying land forces.
pub struct BlockadeRun {
    pub sides: u32,
    pub at_most: i32,
    pub modifier: i32,
}

pub fn blockade_run(carrying: bool) -> BlockadeRun {
    BlockadeRun {
        sides: 6,
        at_most: 2,
        modifier: if carrying { -1 } else { 0 },
    }
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

    #[test]
    fn a_transport_slips_out_on_three() {
        // rules-notes NAV-1: die 3, carrying troops: 3 - 1 = 2 -> slips out
        let r = blockade_run(true);
        assert!(3 + r.modifier <= r.at_most);
        let r = blockade_run(false);
        assert!(3 + r.modifier > r.at_most);
    }
}
