//! The rules engine: state + orders + dice -> new state + outcomes.
//!
//! Pure: no files, clock, mail or randomness but the [`Dice`] it is
//! handed. [`resolve`] runs the open phase; [`validate`] is the hook the
//! order checker calls so that an acknowledgement shows every reason an
//! order cannot be carried out. One concern per file, citing the book.

pub mod outcome;
pub mod war;

use crate::dice::{Dice, DiceError};
use crate::ids::PowerId;
use crate::orders::ast::{Order, OrderLine};
use crate::scenario::Scenario;
use crate::state::State;
use std::collections::BTreeMap;
use std::fmt;

pub use outcome::{Outcome, Visibility};

/// Accepted orders of the open phase, by power.
pub type PhaseOrders = BTreeMap<PowerId, Vec<OrderLine>>;

/// What resolving a phase produced.
#[derive(Clone, Debug)]
pub struct Resolution {
    pub state: State,
    pub outcomes: Vec<Outcome>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    Dice(DiceError),
    /// The game is over; nothing more can be resolved.
    GameOver,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Dice(e) => write!(f, "{e}"),
            EngineError::GameOver => write!(f, "the game is over"),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<DiceError> for EngineError {
    fn from(e: DiceError) -> Self {
        EngineError::Dice(e)
    }
}

/// Why an order cannot be carried out (shown in the acknowledgement).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// Rule section, e.g. `2.13`.
    pub rule: String,
    pub reason: String,
}

/// Which powers must or may order in the open phase.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roles {
    pub must: Vec<PowerId>,
    pub may: Vec<PowerId>,
}

/// Who orders in the open phase.
pub fn roles(_scenario: &Scenario, state: &State) -> Roles {
    let players: Vec<PowerId> = PowerId::ALL
        .into_iter()
        .filter(|p| state.power(*p).control.is_player())
        .collect();
    Roles {
        must: players.clone(),
        may: players,
    }
}

/// Legality of one order for `power` in the open phase, as far as it can
/// be known before resolution.
pub fn validate(_scenario: &Scenario, _state: &State, _power: PowerId, _order: &Order) -> Result<(), Rejection> {
    Ok(())
}

/// Resolve the open phase.
pub fn resolve(
    _scenario: &Scenario,
    state: &State,
    _orders: &PhaseOrders,
    _dice: &mut dyn Dice,
) -> Result<Resolution, EngineError> {
    if state.over.is_some() {
        return Err(EngineError::GameOver);
    }
    Ok(Resolution {
        state: state.clone(),
        outcomes: Vec::new(),
    })
}
