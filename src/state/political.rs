//! The kingdoms of the EiA political option (seed 004, 11.1–11.7): which
//! exist, who controls each, what they are made of and what they hold.
//! Read and changed by `rules::political`; empty (and absent from the
//! state file) in a game without the option, so older state files load.

use crate::ids::{Nation, PowerId, Turn};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One kingdom in existence (its political marker on the map, under its
/// controller's free state flag: 11.1.1.2, 11.2.1.1, …).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kingdom {
    /// The major power whose free state flag marks it.
    pub controller: PowerId,
    /// Its component territories, by province id of the map (a minor
    /// country of the seed is the map province of the same name).
    pub components: BTreeSet<String>,
    /// The turn it was declared.
    pub created: Turn,
    /// The free state's treasury (11.x.2, 8.2.3): Gold collected for it
    /// and not yet spent on its units; `"unknown"` in the state file of a
    /// power that is not its controller (2.5), read as 0.
    #[serde(default, deserialize_with = "gold_or_unknown")]
    pub gold: i64,
    /// 11.1.4: received by cession; its new controller may turn it into
    /// conquered territory (8.8.5).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ceded: bool,
}

/// A treasury, or `"unknown"` (another power's kingdom, 2.5) read as 0.
fn gold_or_unknown<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    struct V;
    impl serde::de::Visitor<'_> for V {
        type Value = i64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an amount of Gold, or \"unknown\"")
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<i64, E> {
            Ok(v)
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<i64, E> {
            i64::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<i64, E> {
            if v == super::UNKNOWN {
                Ok(0)
            } else {
                Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
            }
        }
    }
    d.deserialize_any(V)
}

/// The political combinations in play.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Political {
    /// Kingdoms in existence, by kingdom id of `tables/political.toml`.
    #[serde(default)]
    pub kingdoms: BTreeMap<String, Kingdom>,
    /// 11.1.1.2, 11.1.3.3: the power holding the Polish loyalty marker
    /// (while Poland exists, its controller; after a conquest with Polish
    /// forces left, the former controller until they are gone or peace
    /// is made with the conqueror).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polish_loyalty: Option<PowerId>,
    /// 11.1.3.3: the power that conquered Poland while Polish forces
    /// remained with the holder of the loyalty marker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poland_conquered_by: Option<PowerId>,
    /// 11.5.1.2, 11.5.1.3: the powers that have applied peace condition
    /// C.8 against Austria (ended the Holy Roman Empire) and not had it
    /// cancelled by Austria's C.9.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub hre_ended_by: BTreeSet<PowerId>,
    /// 11.2.2.2: the squadrons a kingdom brought into play (the Venetia
    /// fleet), each commanded only by that kingdom's controller. A row
    /// stays after its squadron is lost: the counter enters play once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fleets: Vec<KingdomFleet>,
}

/// A kingdom's own squadron (11.2.2.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KingdomFleet {
    /// The kingdom id of `tables/political.toml`.
    pub kingdom: String,
    pub nation: Nation,
    pub number: u32,
}

impl Political {
    pub fn is_empty(&self) -> bool {
        self == &Political::default()
    }

    /// The kingdom `id` if it exists now.
    pub fn kingdom(&self, id: &str) -> Option<&Kingdom> {
        self.kingdoms.get(id)
    }

    /// The kingdom whose own squadron `nation` `number` is (11.2.2.2).
    pub fn fleet_of(&self, nation: &Nation, number: u32) -> Option<&str> {
        self.fleets
            .iter()
            .find(|f| f.nation == *nation && f.number == number)
            .map(|f| f.kingdom.as_str())
    }
}
