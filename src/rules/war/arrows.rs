//! 12.2.1 Crossing arrows and the fleets in their sea zone: one answer,
//! read by movement (`movement.rs`) and by the line of communication
//! that prices builds (2.71, `builds::price`). The map only lists the
//! arrows; which of them an enemy fleet interdicts depends on the state,
//! so it is decided here and handed to `Scenario::loc_length` as a filter.
//!
//! - Type 1 (single arrow): an enemy squadron at sea in the arrow's zone
//!   closes it to movement and cuts lines traced across it, unless the
//!   power's side holds the land area at each end. Unless interdicted it
//!   "has no other effect upon supply lines".
//! - Type 2 (double arrow): an enemy squadron there closes it regardless
//!   of who holds the ends; and a line may only be traced across it "if a
//!   supply depot is located in both adjacent land areas". House: La
//!   Guerre has no supply depots; the power's side holding both ends
//!   stands for them (the same holding that keeps a type 1 arrow open).
//!
//! La Guerre has no supply other than the line of communication of 2.71,
//! so "supply chains" and "lines of communication" are the same line
//! here: a build across an interdicted arrow is priced by the longer line
//! around it, or refused when there is none.
//!
//! These are the arrow rules with or without the option `naval` (the
//! map's arrows follow 12.2.1 as a house rule of La Guerre, see
//! `arrows.toml`); what only the option adds is in `option_naval.rs`.
//! The base rules say nothing of fleets and lines of communication, so
//! whether lines are cut without the option is the scenario's house
//! switch `arrows_cut_lines` (`tables/naval.toml`, default: cut).

use super::control::{friendly, hostile};
use crate::ids::{Nation, PowerId};
use crate::map::Arrow;
use crate::state::{Location, State};

/// What a power would do across an arrow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Corps crossing it (5.5).
    Move,
    /// A line of communication (supply) traced across it (2.71).
    Supply,
}

/// Whether an enemy squadron of `power` (one its commander now fights,
/// 11.7.1) is at sea in `arrow`'s zone.
pub fn interdicting_fleet(state: &State, power: PowerId, arrow: &Arrow) -> bool {
    state
        .squadrons
        .iter()
        .any(|s| matches!(&s.location, Location::Sea(z) if *z == arrow.sea) && hostile(state, &Nation::Major(power), s))
}

/// Whether `power`'s side holds the land area at each end of `arrow`.
pub fn both_ends_held(state: &State, power: PowerId, arrow: &Arrow) -> bool {
    friendly(state, power, &arrow.from) && friendly(state, power, &arrow.to)
}

/// 12.2.1: whether `arrow` is closed to `power` for `use_`.
pub fn closed(state: &State, power: PowerId, arrow: &Arrow, use_: Use) -> bool {
    let fleet = interdicting_fleet(state, power, arrow);
    let held = both_ends_held(state, power, arrow);
    match (arrow.kind >= 2, use_) {
        // 12.2.1 type 1: "unless friendly corps and/or garrisons occupy
        // the land area on each side of the arrow"
        (false, _) => fleet && !held,
        // 12.2.1 type 2: "regardless of the presence of friendly troops"
        (true, Use::Move) => fleet,
        // 12.2.1 type 2: and "a supply depot ... in both adjacent land
        // areas" (house: both ends held, see the module doc)
        (true, Use::Supply) => fleet || !held,
    }
}

/// 12.2.1, 2.71: the length of `power`'s line of communication to `to`,
/// across only the arrows open to its supply now. Without the option
/// `naval` the base rules are silent, and the scenario's switch
/// `arrows_cut_lines` (`tables/naval.toml`, house) says whether 12.2.1
/// cuts lines at all.
pub fn loc_length(scenario: &crate::scenario::Scenario, state: &State, power: PowerId, to: &str) -> Option<u32> {
    let cut = super::option_naval::enabled(state) || scenario.tables.naval.arrows_cut_lines;
    scenario.loc_length(power, to, |a| !(cut && closed(state, power, a, Use::Supply)))
}
