//! Dice: the only randomness the rules engine sees.
//!
//! The engine asks for a roll by *purpose* (a canonical string such as
//! `land-battle/vienna/1/round-2/defender`) and a number of sides; a
//! [`Dice`] source answers and logs it. Sources: committed (the protocol
//! of `docs/dice.md`), scripted (tests) and manual (physical dice entered
//! by the moderator). Pure: the seed comes in from outside.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a roll was produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RollSource {
    Committed,
    Manual,
    Scripted,
}

/// One logged roll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roll {
    pub purpose: String,
    pub sides: u32,
    pub result: u32,
    pub source: RollSource,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiceError {
    /// A scripted or manual source has no value left for this roll.
    Exhausted { purpose: String },
    /// A scripted or manual value is out of range for the die.
    OutOfRange { purpose: String, sides: u32, value: u32 },
    /// The same purpose was asked twice (purposes must be unique).
    Repeated { purpose: String },
}

impl fmt::Display for DiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiceError::Exhausted { purpose } => write!(f, "no die left for roll '{purpose}'"),
            DiceError::OutOfRange { purpose, sides, value } => {
                write!(f, "die value {value} for roll '{purpose}' is not between 1 and {sides}")
            }
            DiceError::Repeated { purpose } => write!(f, "roll '{purpose}' was asked for twice"),
        }
    }
}

impl std::error::Error for DiceError {}

/// A source of dice.
pub trait Dice {
    /// Roll one die of `sides` faces (1..=sides) for `purpose`.
    fn roll(&mut self, purpose: &str, sides: u32) -> Result<u32, DiceError>;
    /// Every roll so far, in the order asked.
    fn log(&self) -> &[Roll];
}
