//! `empereur dice`: derive a roll or a commitment by hand, for auditors
//! and for the examples of docs/dice.md.

use crate::dice::{self, Entropy};
use crate::ids::PowerId;
use anyhow::{Result, anyhow, bail};

#[derive(Debug, Clone)]
pub enum DiceCmd {
    /// Derive one roll from a revealed seed, the entropies and a purpose.
    Roll(RollArgs),
    /// Compute the commitment to a seed for a game and phase.
    Commit(CommitArgs),
}

#[derive(Debug, Clone)]
pub struct RollArgs {
    /// The revealed seed, 64 hex digits.
    pub seed: String,
    /// The roll's purpose string, exactly as in the dice log.
    pub purpose: String,
    /// Faces of the die (10 for the rules, 6 for the EiA modules).
    pub sides: u32,
    /// A power's entropy line, `POWER=TEXT` (repeatable; absent = empty).
    pub entropy: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct CommitArgs {
    /// The game id.
    pub game_id: String,
    /// The phase id, e.g. 1805-fall-turn-start.
    pub phase: String,
    /// The seed, 64 hex digits.
    pub seed: String,
}

/// What `empereur dice` derived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Derived {
    /// A roll: the key from the seed and entropies (hex), the die and
    /// purpose asked for, and the result.
    Roll {
        key: String,
        sides: u32,
        purpose: String,
        roll: u32,
    },
    /// A phase's commitment (hex).
    Commitment(String),
}

impl std::fmt::Display for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Derived::Roll {
                key,
                sides,
                purpose,
                roll,
            } => {
                writeln!(f, "key {key}")?;
                writeln!(f, "d{sides} for '{purpose}'")?;
                writeln!(f, "{roll}")
            }
            Derived::Commitment(c) => writeln!(f, "{c}"),
        }
    }
}

impl super::Summary for Derived {}

pub fn run(cmd: &DiceCmd) -> Result<Derived> {
    match cmd {
        DiceCmd::Roll(a) => {
            let seed = dice::parse_hex32(&a.seed).map_err(|e| anyhow!("--seed: {e}"))?;
            if a.sides == 0 {
                bail!("--sides must be at least 1");
            }
            let entropy = parse_entropy(&a.entropy)?;
            let key = dice::derive_key(&seed, &entropy);
            Ok(Derived::Roll {
                key: dice::to_hex(&key),
                sides: a.sides,
                purpose: a.purpose.clone(),
                roll: dice::derive_roll(&key, &a.purpose, a.sides),
            })
        }
        DiceCmd::Commit(a) => {
            let seed = dice::parse_hex32(&a.seed).map_err(|e| anyhow!("--seed: {e}"))?;
            let phase: crate::ids::PhaseId = a.phase.parse().map_err(|e: String| anyhow!("--phase: {e}"))?;
            Ok(Derived::Commitment(dice::commitment(
                &a.game_id,
                &phase.to_string(),
                &seed,
            )))
        }
    }
}

/// `POWER=TEXT` pairs into entropy by power.
pub fn parse_entropy(items: &[String]) -> Result<Entropy> {
    let mut out = Entropy::new();
    for item in items {
        let (p, text) = item
            .split_once('=')
            .ok_or_else(|| anyhow!("--entropy '{item}': expected POWER=TEXT"))?;
        let power = PowerId::parse(p).ok_or_else(|| anyhow!("--entropy '{item}': no power '{p}'"))?;
        if out.insert(power, text.to_string()).is_some() {
            bail!("--entropy: {} is given twice", power.id());
        }
    }
    Ok(out)
}
