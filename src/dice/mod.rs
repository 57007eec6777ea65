//! Dice: the only randomness the rules engine sees.
//!
//! The engine asks for a roll by *purpose* (a canonical string such as
//! `land-battle/vienna/1/round-2/defender`) and a number of sides; a
//! [`Dice`] source answers and logs it. Sources:
//!
//! - [`Committed`]: the commit-reveal protocol of `docs/dice.md` (seed +
//!   every power's entropy -> key; key + purpose -> roll);
//! - [`Scripted`]: a test double handing out listed values, by purpose or
//!   in order, that fails when one is missing or left over;
//! - [`Manual`]: physical dice typed in by the moderator, logged as manual;
//! - [`Replay`]: the rolls of a recorded dice log, for `verify --replay`.
//!
//! Purposes are unique within a phase: asking twice for the same purpose
//! is [`DiceError::Repeated`]. Where the same event can happen twice the
//! engine puts a counter in the purpose (`…/round-2`). Pure: seeds and
//! entropy come in from outside (see `store::phase`).

pub mod beacon;
mod protocol;
mod sources;

pub use beacon::{BeaconRound, BeaconValue};
pub use protocol::{
    CHAIN_TAG, COMMIT_TAG, Entropy, KEY_TAG, Key, SEED_LEN, Seed, accepts, chain_link, chain_seed, commitment,
    commitment_with, d100, derive_key, derive_key_with, derive_roll, face, parse_hex32, power_entropy, reject_limit,
    roll_block, to_hex,
};
pub use sources::{Committed, Manual, Replay, Scripted};

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

impl fmt::Display for RollSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RollSource::Committed => "committed",
            RollSource::Manual => "manual",
            RollSource::Scripted => "scripted",
        })
    }
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
    /// A die of zero sides was asked for.
    NoFaces { purpose: String },
    /// Values were given that no roll used (scripted, manual, replay).
    Unused { values: Vec<String> },
    /// A recorded roll has another number of sides than the one asked.
    SidesDiffer { purpose: String, recorded: u32, asked: u32 },
}

impl fmt::Display for DiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiceError::Exhausted { purpose } => write!(f, "no die left for roll '{purpose}'"),
            DiceError::OutOfRange { purpose, sides, value } => {
                write!(f, "die value {value} for roll '{purpose}' is not between 1 and {sides}")
            }
            DiceError::Repeated { purpose } => write!(f, "roll '{purpose}' was asked for twice"),
            DiceError::NoFaces { purpose } => write!(f, "roll '{purpose}' asks for a die without faces"),
            DiceError::Unused { values } => {
                write!(f, "{} die value(s) were not used: {}", values.len(), values.join(", "))
            }
            DiceError::SidesDiffer {
                purpose,
                recorded,
                asked,
            } => write!(
                f,
                "roll '{purpose}' is recorded as a d{recorded} but the engine asks for a d{asked}"
            ),
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
    /// After resolution: an error if values given to this source were
    /// left unused (scripted, manual, replay). Committed dice never are.
    fn finish(&self) -> Result<(), DiceError> {
        Ok(())
    }
}
