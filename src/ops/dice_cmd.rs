//! `empereur dice`: derive a roll or a commitment by hand, for auditors
//! and for the examples of docs/dice.md.

use crate::dice::{self, Entropy};
use crate::ids::PowerId;
use anyhow::{Result, anyhow, bail};

#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Subcommand))]
pub enum DiceCmd {
    /// Derive one roll from a revealed seed, the entropies and a purpose.
    #[cfg_attr(
        feature = "cli",
        command(
            after_help = "Example:\n  empereur dice roll --seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f \\\n      --entropy france='Vive l'\\''Empereur' --entropy britain=rule-britannia \\\n      --purpose land-battle/ulm/1/round-1/attacker --sides 10\n\nThe result stands alone on the last line."
        )
    )]
    Roll(RollArgs),
    /// Compute the commitment to a seed for a game and phase.
    #[cfg_attr(
        feature = "cli",
        command(
            after_help = "Example:\n  empereur dice commit --game-id demo --phase 1805-fall-turn-start --seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        )
    )]
    Commit(CommitArgs),
}

#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct RollArgs {
    /// The revealed seed, 64 hex digits.
    #[cfg_attr(feature = "cli", arg(long))]
    pub seed: String,
    /// The roll's purpose string, exactly as in the dice log.
    #[cfg_attr(feature = "cli", arg(long))]
    pub purpose: String,
    /// Faces of the die (10 for the rules, 6 for the EiA modules).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10))]
    pub sides: u32,
    /// A power's entropy line, `POWER=TEXT` (repeatable; absent = empty).
    #[cfg_attr(feature = "cli", arg(long = "entropy", value_name = "POWER=TEXT"))]
    pub entropy: Vec<String>,
}

#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CommitArgs {
    /// The game id.
    #[cfg_attr(feature = "cli", arg(long = "game-id"))]
    pub game_id: String,
    /// The phase id, e.g. 1805-fall-turn-start.
    #[cfg_attr(feature = "cli", arg(long))]
    pub phase: String,
    /// The seed, 64 hex digits.
    #[cfg_attr(feature = "cli", arg(long))]
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
