//! `empereur physical-dice`: announce, before a phase opens, that it will
//! be resolved with physical dice (docs/dice.md 4). Only such a phase may
//! be resolved with `--manual-dice`: announced after it opened, the
//! moderator could read its committed dice first and type others.
//! The announcement is journalled and mailed to every player; the
//! resolution that opens the phase records it (`next_dice`) and its
//! opening mail says so.
#![allow(clippy::disallowed_methods)] // adapter

use super::Done;
use crate::ids::PhaseId;
use crate::mail::compose;
use crate::mail::outbox;
use crate::store::{GameDir, history, phase};
use anyhow::{Result, anyhow};
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct PhysicalDiceArgs {
    /// The game directory.
    pub game: PathBuf,
    /// The phase (not yet open) to be resolved with physical dice.
    pub phase: String,
}

/// Announced, or refused for a domain reason (exit 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Announced {
    Done { phase: PhaseId },
    Refused(String),
}

impl std::fmt::Display for Announced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Announced::Done { phase } => writeln!(
                f,
                "announced: {phase} will be resolved with physical dice (mailed to every player)"
            ),
            Announced::Refused(why) => writeln!(f, "not announced: {why}"),
        }
    }
}

impl super::Summary for Announced {
    fn done(&self) -> Done {
        match self {
            Announced::Done { .. } => Done::Yes,
            Announced::Refused(_) => Done::No,
        }
    }
}

pub fn run(a: &PhysicalDiceArgs) -> Result<Announced> {
    let dir = GameDir::new(&a.game);
    let _lock = dir.lock()?;
    let asked: PhaseId = a.phase.parse().map_err(|e: String| anyhow!("--phase: {e}"))?;
    let now = super::clock::now()?;
    announce(&dir, asked, now)
}

/// Announce `asked` (call with the game lock held).
pub fn announce(dir: &GameDir, asked: PhaseId, now: chrono::DateTime<chrono::Utc>) -> Result<Announced> {
    let state = dir.load_state()?;
    if asked <= state.phase {
        return Ok(Announced::Refused(format!(
            "{asked} is not after the open phase {}: physical dice are announced before a phase opens",
            state.phase
        )));
    }
    for name in history::list(dir)?.into_values() {
        if history::read_entry(dir, &name)?.0.next_phase == Some(asked) {
            return Ok(Announced::Refused(format!(
                "{asked} was opened already (history/{name}): physical dice are announced before a phase opens"
            )));
        }
    }
    phase::announce_physical(dir, asked)?;
    let config = dir.load_config()?;
    let body = format!(
        "The moderator announces that phase {asked} of game {} will be resolved with physical dice, rolled and typed in by the moderator: they cannot be checked against the dice commitment.\nThe phase is not open yet; its opening mail will say so again. Every other phase keeps committed dice (docs/dice.md 4).\n",
        config.game
    );
    let m = compose::game_mail(
        &config,
        outbox::stable_id(&["physical-dice", &config.game, &asked.to_string()]),
        compose::everyone(&config, None),
        format!("Empereur {}: {asked} will be resolved with physical dice", config.game),
        body,
        now,
    );
    outbox::queue(dir, &m)?;
    dir.journal_line(
        &super::clock::stamp(now),
        &format!("physical-dice {asked}: announced and mailed"),
    )?;
    Ok(Announced::Done { phase: asked })
}
