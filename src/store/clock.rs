//! The open phase's clock (`phase/clock.toml`) and the game's schedule
//! record (`schedule.toml`: lateness per power, absences, seconds).
#![allow(clippy::disallowed_methods)] // adapter

use super::{GameDir, atomic_write, read_text};
use crate::ids::{PhaseId, PowerId};
use crate::orders::ast::Readiness;
use crate::schedule::{Absence, PhaseClock};
use anyhow::{Result, anyhow};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What the game remembers about players across phases.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// Phases each power missed (its defaults applied).
    #[serde(default)]
    pub lateness: BTreeMap<PowerId, u32>,
    #[serde(default)]
    pub absences: Vec<Absence>,
    /// A second address allowed to send orders for a power.
    #[serde(default)]
    pub seconds: BTreeMap<PowerId, String>,
    /// The game is paused (by `pause`) since this time.
    #[serde(default)]
    pub paused: bool,
    /// The last READY or WAIT of each power, and the phase it was said
    /// in (a word of an earlier phase is void).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub readiness: BTreeMap<PowerId, Said>,
}

/// A READY or WAIT, and the phase it holds for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Said {
    pub phase: PhaseId,
    pub word: Readiness,
}

impl Schedule {
    /// READY and WAIT in force in `phase`.
    pub fn readiness_in(&self, phase: PhaseId) -> BTreeMap<PowerId, Readiness> {
        self.readiness
            .iter()
            .filter(|(_, s)| s.phase == phase)
            .map(|(p, s)| (*p, s.word))
            .collect()
    }
}

impl GameDir {
    pub fn clock_file(&self) -> PathBuf {
        self.phase().join("clock.toml")
    }
    pub fn schedule_file(&self) -> PathBuf {
        self.root.join("schedule.toml")
    }

    pub fn load_clock(&self) -> Result<Option<PhaseClock>> {
        let p = self.clock_file();
        if !p.exists() {
            return Ok(None);
        }
        let text = read_text(&p)?;
        toml::from_str(&text)
            .map(Some)
            .map_err(|e| anyhow!("{}: {}", p.display(), e.message().trim()))
    }

    pub fn save_clock(&self, clock: &PhaseClock) -> Result<()> {
        atomic_write(&self.clock_file(), toml::to_string(clock)?.as_bytes())
    }

    pub fn load_schedule(&self) -> Result<Schedule> {
        let p = self.schedule_file();
        if !p.exists() {
            return Ok(Schedule::default());
        }
        let text = read_text(&p)?;
        toml::from_str(&text).map_err(|e| anyhow!("{}: {}", p.display(), e.message().trim()))
    }

    pub fn save_schedule(&self, s: &Schedule) -> Result<()> {
        atomic_write(&self.schedule_file(), toml::to_string(s)?.as_bytes())
    }
}
