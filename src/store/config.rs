//! `game.toml`: a game's configuration. Written by `new`, edited by the
//! moderator (deadlines, transport), read by every command.

use crate::ids::PowerId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub name: String,
    pub email: String,
}

/// A power's player: name, address, and the salted hash of the password
/// (never the password itself).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerEntry {
    pub power: PowerId,
    pub name: String,
    pub email: String,
    /// PHC string (argon2id).
    pub password_hash: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameConfig {
    pub format: u32,
    /// The game id (the `GAME` line of orders).
    pub game: String,
    /// Embedded scenario name (a game created from a directory keeps its
    /// own copy in `scenario/`).
    pub scenario: String,
    #[serde(default)]
    pub options: BTreeSet<String>,
    pub moderator: Person,
    #[serde(default, rename = "player")]
    pub players: Vec<PlayerEntry>,
    /// IANA time zone of the game's deadlines, e.g. `Europe/Paris`.
    #[serde(default = "default_tz")]
    pub timezone: String,
    /// Deadlines per phase kind, grace, reminders (issue 8).
    #[serde(default)]
    pub deadlines: crate::schedule::DeadlineConfig,
}

fn default_tz() -> String {
    "UTC".to_string()
}

impl GameConfig {
    pub fn from_toml(text: &str) -> Result<GameConfig, String> {
        let c: GameConfig = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            match line {
                Some(l) => format!("line {l}: {}", e.message().trim()),
                None => e.message().trim().to_string(),
            }
        })?;
        c.deadlines.validate()?;
        c.timezone
            .parse::<chrono_tz::Tz>()
            .map_err(|_| format!("timezone '{}' is not an IANA time zone (e.g. Europe/Paris)", c.timezone))?;
        if c.format != 1 {
            return Err(format!(
                "game.toml format {} is not supported (this build reads format 1)",
                c.format
            ));
        }
        Ok(c)
    }
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("config serialises")
    }
    pub fn tz(&self) -> chrono_tz::Tz {
        self.timezone.parse().unwrap_or(chrono_tz::Tz::UTC)
    }
    pub fn player(&self, p: PowerId) -> Option<&PlayerEntry> {
        self.players.iter().find(|x| x.power == p)
    }
}
