//! EiA optional political combinations (seed 004, 11.x), switched on by
//! the game option `political` (`state.options`).
//!
//! - `kingdoms`: the combinations of minor countries and what follows
//!   from them: Poland (11.1), Italy (11.2), Westphalia (11.3), Bavaria
//!   (11.4), the Confederation of the Rhine (11.5), the Ottoman Empire
//!   (11.6) and the Two Sicilies (11.7).
//! - `dominance`: alternate dominant powers (11.8).
//! - `peace`: political restrictions on peace (11.9).
//!
//! EiA ideas La Guerre lacks (political points, civil disorder, morale
//! levels) are mapped through `tables/political.toml`, each row with its
//! provenance; `docs/rules-coverage.md` says what was mapped and why.

pub mod dominance;
pub mod peace;

use crate::state::State;

/// The option id in `game.toml` / `state.options`.
pub const ID: &str = "political";

pub fn enabled(state: &State) -> bool {
    state.options.contains(ID)
}
