//! A power's standing orders for the choices the EiA naval option (seed
//! 003, 12.2.x) gives a player after and around a naval battle. Each
//! field left empty means "the documented default" (`rules::war::standing`),
//! which is what the engine did before these orders existed, so a game
//! that never gives one plays and replays as before. Like every standing
//! order they are the owner's secret (`state::view`).

use crate::ids::PowerId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// 12.2.6.1.8: what a fleet does after the loser has retreated (a
/// victor), or after a battle with no victor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterBattle {
    /// Remain in the sea zone (the default of both).
    Remain,
    /// A victor only: pursue the loser to its port and blockade it.
    Blockade,
    /// Retreat to the nearest usable port, as a loser does.
    Port,
}

impl AfterBattle {
    pub fn word(self) -> &'static str {
        match self {
            AfterBattle::Remain => "remain",
            AfterBattle::Blockade => "blockade",
            AfterBattle::Port => "port",
        }
    }
}

/// The naval option's standing orders of one power.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NavalStanding {
    /// 12.2.6.1.7: declare the general chase as the victor (default yes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chase: Option<bool>,
    /// 12.2.6.1.8: after a victory (default remain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_victory: Option<AfterBattle>,
    /// 12.2.6.1.8: after a battle with no victor (default remain; never
    /// blockade: "no pursuit is allowed").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_draw: Option<AfterBattle>,
    /// 12.2.7.3: an attacked fleet in the Canaries or the West Indies
    /// tries to evade (default yes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evade: Option<bool>,
    /// 12.2.6.1.9.1: the ports for disabled ships, best first (default:
    /// the nearest usable port).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_to: Vec<String>,
    /// 12.2.9.3, 12.2.6.3.1 (EiA 6.3.1.3): the powers denied access to
    /// this power's ports (default: none).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub ports_closed_to: BTreeSet<PowerId>,
}

impl NavalStanding {
    pub fn is_default(&self) -> bool {
        self == &NavalStanding::default()
    }
}
