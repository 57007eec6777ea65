//! Entry points of the military rules (5.4 naval phase, 5.5 land phase,
//! 5.6 battles, sieges, 5.12 surrender), called by the sequence of play.
//! Implemented in the files beside this one.

use super::{EngineError, Outcome, Rejection};
use crate::dice::Dice;
use crate::ids::PowerId;
use crate::orders::ast::{Order, OrderLine};
use crate::scenario::Scenario;
use crate::state::State;

/// 5.4: resolve the Naval Phase of `power`'s Player Turn.
pub fn naval_phase(
    _scenario: &Scenario,
    _state: &mut State,
    _power: PowerId,
    _orders: &[OrderLine],
    _dice: &mut dyn Dice,
    _out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    Ok(())
}

/// 5.5: resolve the Land Phase of `power`'s Player Turn (movement,
/// battles, sieges, garrisons).
pub fn land_phase(
    _scenario: &Scenario,
    _state: &mut State,
    _power: PowerId,
    _orders: &[OrderLine],
    _dice: &mut dyn Dice,
    _out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    Ok(())
}

/// Legality of a naval, land or standing order before resolution.
pub fn validate(_scenario: &Scenario, _state: &State, _power: PowerId, _order: &Order) -> Result<(), Rejection> {
    Ok(())
}
