//! Typed table of the EiA political option's dominant powers and peace
//! restrictions (seed 004, 11.8–11.9): `tables/political_dominance.toml`,
//! read by `rules::political::{dominance, peace}`.
//!
//! It holds how the seed's territories read on the scenario's map (11.8.3,
//! 11.8.4) and the numbers La Guerre needs that the seed does not give:
//! Gold per EiA money point and the battle modifiers that stand for
//! morale (11.8.2.1). The seed's own numbers stay in the code beside
//! their rule.

use crate::ids::PowerId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `tables/political_dominance.toml`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PoliticalDominanceTable {
    pub source: String,
    /// Gold per EiA money point ($), for 11.8.2.4.
    pub gold_per_money_point: i64,
    /// 11.8.2.1: land-battle modifier of a power that has become dominant.
    pub battle_modifier_gained: i32,
    /// 11.8.2.1: land-battle modifier of France or Britain without
    /// dominant status.
    pub battle_modifier_lost: i32,
    /// 11.8.2.5: the highest rating a leader may be improved to.
    pub leader_rating_max: u8,
    /// 11.8.3: use the seed's fallback territories for a game without the
    /// kingdoms of 11.1–11.7 ("if not using option 11.x").
    pub kingdom_fallback: bool,
    pub peace: PeaceSwitches,
    pub territory: Vec<Territory>,
    /// 11.8.3: what Austria, Prussia, Russia, Spain and Turkey need.
    pub gain: BTreeMap<PowerId, Gain>,
    /// 11.8.4: what France and Britain must lose.
    pub lose: BTreeMap<PowerId, Lose>,
}

/// Which of the 11.9 restrictions are in play.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PeaceSwitches {
    /// 11.9.1.1.
    pub territorial_losses: bool,
    /// 11.9.1.2.
    pub civil_disorder: bool,
    /// 11.9.2.1 and 11.9.2.2.
    pub france_britain_at_war: bool,
    /// 11.9.2.2 C.5: how many seasons a granted access lasts (house:
    /// the seed gives no duration).
    pub access_seasons: u32,
    /// 11.9.2.1: the powers at war when a game starts, by start year
    /// (read while `france_britain_at_war` is on).
    #[serde(default)]
    pub start_at_war: Vec<StartAtWar>,
}

/// 11.9.2.1: two powers that start at war in a game starting in
/// `start_year`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StartAtWar {
    pub powers: [PowerId; 2],
    pub start_year: u16,
}

/// One territory of 11.8.3 / 11.8.4.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Territory {
    pub id: String,
    /// Provinces that must all be controlled.
    #[serde(default)]
    pub provinces: Vec<String>,
    /// A kingdom of 11.1–11.7 that counts once created and controlled.
    #[serde(default)]
    pub kingdom: Option<String>,
    /// The seed's fallback while the kingdom does not exist.
    #[serde(default)]
    pub fallback: Vec<String>,
    #[serde(default)]
    pub fallback_needs: usize,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Gain {
    pub needs: usize,
    pub territories: Vec<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Lose {
    pub lost: usize,
    pub territories: Vec<String>,
}

impl PoliticalDominanceTable {
    pub fn territory(&self, id: &str) -> Option<&Territory> {
        self.territory.iter().find(|t| t.id == id)
    }

    /// Territory ids the gain and lose lists name that are not defined,
    /// and province ids a territory names that `known` refuses.
    pub fn problems(&self, known: impl Fn(&str) -> bool) -> Vec<String> {
        let mut v = Vec::new();
        let lists = self
            .gain
            .values()
            .flat_map(|g| &g.territories)
            .chain(self.lose.values().flat_map(|l| &l.territories));
        for id in lists {
            if self.territory(id).is_none() {
                v.push(format!("no territory '{id}'"));
            }
        }
        for t in &self.territory {
            for p in t.provinces.iter().chain(&t.fallback) {
                if !known(p) {
                    v.push(format!("territory '{}': no province '{p}'", t.id));
                }
            }
            if t.provinces.is_empty() && t.kingdom.is_none() {
                v.push(format!("territory '{}' names no province and no kingdom", t.id));
            }
        }
        v
    }
}
