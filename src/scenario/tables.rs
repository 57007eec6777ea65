//! Rules tables of a scenario, one TOML file each under `tables/`.
//!
//! Every table carries `source` (`seed <rule>` or `house: <reason>`), so a
//! moderator who owns the printed charts can see which to replace. To add
//! a table: write `tables/<name>.toml`, add a typed struct here, a field
//! in [`Tables`] and a line in [`Tables::load`].

use super::{Problems, ScenarioFiles, parse_file};
use crate::ids::PowerId;
use crate::map::Source;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// 2.71 Build Costs Abroad: list cost × LOC length -> adjusted cost.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BuildCosts {
    pub source: String,
    /// Percent added per LOC step (QA01: "about 5 % per province").
    pub percent_per_step: u32,
    /// How the raised cost rounds: `nearest` (halves up), `up` or `down`.
    pub rounding: Rounding,
}

/// Rounding of a raised build cost (2.71).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rounding {
    /// To the nearest Gold, halves up.
    Nearest,
    Up,
    Down,
}

impl std::fmt::Display for Rounding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Rounding::Nearest => "nearest",
            Rounding::Up => "up",
            Rounding::Down => "down",
        })
    }
}

impl BuildCosts {
    /// 2.71: the adjusted cost of units with total list cost `list` built
    /// at the end of a LOC of `loc` steps (home province exclusive,
    /// destination inclusive, double-counting provinces counted twice):
    /// `list` raised by `percent_per_step` % per step, then rounded.
    pub fn cost(&self, list: u32, loc: u32) -> u32 {
        let raised = u64::from(list) * (100 + u64::from(self.percent_per_step) * u64::from(loc));
        let whole = match self.rounding {
            Rounding::Nearest => (raised + 50) / 100,
            Rounding::Up => raised.div_ceil(100),
            Rounding::Down => raised / 100,
        };
        u32::try_from(whole).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rounding: Rounding) -> BuildCosts {
        BuildCosts {
            source: "house: test".into(),
            percent_per_step: 5,
            rounding,
        }
    }

    #[test]
    fn the_2_71_example_with_nearest_rounding() {
        let t = table(Rounding::Nearest);
        // 2.71: 3 infantry ($6) to Naples (LOC 3) cost $7.
        assert_eq!(t.cost(6, 3), 7);
        assert_eq!(t.cost(6, 0), 6);
        // 7.5 rounds up to 8 (halves up), 9.9 to 10.
        assert_eq!(t.cost(6, 5), 8);
        assert_eq!(t.cost(6, 13), 10);
    }

    #[test]
    fn up_and_down_rounding_differ() {
        assert_eq!(table(Rounding::Up).cost(6, 1), 7);
        assert_eq!(table(Rounding::Down).cost(6, 3), 6);
    }
}

/// 4.2 Winterphase economy numbers (`tables/economy.toml`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EconomyTable {
    pub source: String,
    /// 4.22: Gold per allied NPC.
    pub npc_ally_upkeep: i64,
    /// 4.22: Gold when at war with any major power.
    pub war_upkeep: i64,
    /// 4.213: turns of capital occupation that stop taxes.
    pub capital_loss_turns: u32,
    /// 3.41: desertions per Winter.
    pub desertion_per_winter: u32,
    /// 4.25: Gold per VP bought.
    pub gold_per_vp: u32,
    /// 4.25: most VP bought per Winter.
    pub max_vp_per_year: u32,
    /// 4.25: a power's own yearly maximum, where the table gives one
    /// (else `max_vp_per_year`).
    #[serde(default)]
    pub max_vp_per_year_by_power: std::collections::BTreeMap<crate::ids::PowerId, u32>,
}

impl EconomyTable {
    /// 4.25: the most VP `p` may buy in one Winter.
    pub fn vp_cap(&self, p: crate::ids::PowerId) -> u32 {
        self.max_vp_per_year_by_power
            .get(&p)
            .copied()
            .unwrap_or(self.max_vp_per_year)
    }
}

/// One country's row of the British Embargo Track (4.257, 4.258).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EmbargoRow {
    /// VP Britain loses, by year of participation (index 0 = year 1).
    pub vp: Vec<i64>,
    /// Gold the participant loses, by year of participation.
    pub gold: Vec<i64>,
}

/// 4.257/4.258 British Embargo Track (`tables/embargo.toml`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EmbargoTable {
    pub source: String,
    /// 4.257: VP per minor power port of trade held by a participant.
    pub minor_port_vp: i64,
    pub track: BTreeMap<PowerId, EmbargoRow>,
}

impl EmbargoTable {
    /// (Britain's VP loss, participant's Gold loss) for `power` in its
    /// `year`-th year (1-based); years past the track use its last entry.
    pub fn lookup(&self, power: PowerId, year: u32) -> (i64, i64) {
        let Some(row) = self.track.get(&power) else {
            return (0, 0);
        };
        let at = |v: &[i64]| {
            let i = (year.max(1) as usize - 1).min(v.len().saturating_sub(1));
            v.get(i).copied().unwrap_or(0)
        };
        (at(&row.vp), at(&row.gold))
    }
}

/// A pair-specific NPC alliance target (4.4, 4.71).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NpcPair {
    pub power: PowerId,
    pub npc: PowerId,
    pub target: u32,
}

/// 4.4/4.71 NPC Alliance Table, 5.3 Cancel Declaration Table, 5.1 peace
/// (`tables/diplomacy.toml`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DiplomacyTable {
    pub source: String,
    pub default_target: u32,
    pub attempt_cost: i64,
    pub break_target: u32,
    pub cancel_declaration: Vec<u32>,
    pub peace_enforced_seasons: u32,
    #[serde(default)]
    pub pair: Vec<NpcPair>,
}

impl DiplomacyTable {
    /// The d10 result `power` needs to ally `npc`.
    pub fn target(&self, power: PowerId, npc: PowerId) -> u32 {
        self.pair
            .iter()
            .find(|p| p.power == power && p.npc == npc)
            .map_or(self.default_target, |p| p.target)
    }
}

/// One row of an event table: a die range and an effect (4.72).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EventRow {
    pub from: u32,
    pub to: u32,
    pub effect: EventEffect,
    #[serde(default)]
    pub amount: i64,
    pub text: String,
    #[serde(default)]
    pub once: bool,
    /// Id recorded in `events_used` for a once-only row.
    pub id: Option<String>,
    #[serde(default)]
    pub condition: EventCondition,
}

/// The closed list of event effects the engine implements (4.72).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventEffect {
    None,
    Gold,
    Vp,
    Rebellion,
    Commander,
    PeaceParty,
    Remap,
    NpcAlliance,
}

/// When an event row applies (FAQ98 4.72: unmet -> stays available).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventCondition {
    #[default]
    Always,
    AtWar,
    AtPeace,
    #[serde(rename = "from_1808")]
    From1808,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EventTable {
    pub id: String,
    pub rows: Vec<EventRow>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SeasonTables {
    pub spring: String,
    pub summer: String,
    pub fall: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RebellionTable {
    pub first: [u32; 2],
    pub last: [u32; 2],
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CommanderRow {
    pub from: u32,
    pub to: u32,
    pub rating: u8,
}

/// 4.72 and 2.41: the five event tables, Rebellion and Commanders
/// (`tables/events.toml`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EventsTable {
    pub source: String,
    pub die: u32,
    pub season_table: SeasonTables,
    #[serde(default)]
    pub fall_override: BTreeMap<PowerId, String>,
    pub table: Vec<EventTable>,
    pub rebellion: RebellionTable,
    pub commander: Vec<CommanderRow>,
}

/// The embedded scenario whose tables stand in for missing ones.
pub const DEFAULT_TABLES_FROM: &str = "1805";

/// All rules tables of a scenario.
#[derive(Clone, Debug, Serialize)]
pub struct Tables {
    pub build_costs: BuildCosts,
    pub economy: EconomyTable,
    pub embargo: EmbargoTable,
    pub diplomacy: DiplomacyTable,
    pub events: EventsTable,
    // rules II (military, see `tables_war`)
    pub movement: super::tables_war::MovementTable,
    pub battle: super::tables_war::BattleTable,
    pub siege: super::tables_war::SiegeTable,
    pub naval: super::tables_war::NavalTable,
    pub surrender: super::tables_war::SurrenderTable,
    /// EiA optional naval rules (12.2.x, option `naval`).
    pub naval_option: super::tables_naval::NavalOptionTable,
    /// EiA political option: dominant powers and peace (11.8–11.9).
    pub political_dominance: super::tables_political_dominance::PoliticalDominanceTable,
    /// EiA optional political rules (11.x, option `political`).
    pub political: super::tables_political::PoliticalTable,
}

impl Tables {
    pub fn load(files: &ScenarioFiles, pr: &mut Problems) -> Option<Tables> {
        let build_costs = table(files, pr, "tables/build_costs.toml");
        let economy = table(files, pr, "tables/economy.toml");
        let embargo = table(files, pr, "tables/embargo.toml");
        let diplomacy = table(files, pr, "tables/diplomacy.toml");
        let events = table(files, pr, "tables/events.toml");
        // rules II (military)
        let movement = table(files, pr, "tables/movement.toml");
        let battle = table(files, pr, "tables/battle.toml");
        let siege = table(files, pr, "tables/siege.toml");
        let naval = table(files, pr, "tables/naval.toml");
        let surrender = table(files, pr, "tables/surrender.toml");
        let naval_option = table(files, pr, "tables/naval_option.toml");
        let political_dominance = table(files, pr, "tables/political_dominance.toml");
        let political = table(files, pr, "tables/political.toml");
        Some(Tables {
            build_costs: build_costs?,
            economy: economy?,
            embargo: embargo?,
            diplomacy: diplomacy?,
            events: events?,
            movement: movement?,
            battle: battle?,
            siege: siege?,
            naval: naval?,
            surrender: surrender?,
            naval_option: naval_option?,
            political_dominance: political_dominance?,
            political: political?,
        })
    }

    /// (file, provenance) of every table.
    pub fn sources(&self) -> Vec<(String, Source)> {
        let all = [
            ("tables/build_costs.toml", &self.build_costs.source),
            ("tables/economy.toml", &self.economy.source),
            ("tables/embargo.toml", &self.embargo.source),
            ("tables/diplomacy.toml", &self.diplomacy.source),
            ("tables/events.toml", &self.events.source),
            // rules II (military)
            ("tables/movement.toml", &self.movement.source),
            ("tables/battle.toml", &self.battle.source),
            ("tables/siege.toml", &self.siege.source),
            ("tables/naval.toml", &self.naval.source),
            ("tables/surrender.toml", &self.surrender.source),
            ("tables/naval_option.toml", &self.naval_option.source),
            ("tables/political_dominance.toml", &self.political_dominance.source),
            ("tables/political.toml", &self.political.source),
        ];
        all.iter()
            .map(|(f, s)| {
                (
                    f.to_string(),
                    Source::parse(s).unwrap_or(Source::House { reason: (*s).clone() }),
                )
            })
            .collect()
    }
}

/// Parse one table file, recording a problem on failure.
///
/// A scenario directory may leave a rules table out: it then uses the
/// embedded 1805 scenario's table (the house defaults), so a moderator's
/// copy or a test map need only hold what it changes.
pub fn table<T: serde::de::DeserializeOwned>(files: &ScenarioFiles, pr: &mut Problems, name: &str) -> Option<T> {
    let fallback;
    let files = if files.contains_key(name) {
        files
    } else {
        match super::embedded(DEFAULT_TABLES_FROM) {
            Some(f) if f.contains_key(name) => {
                fallback = f;
                &fallback
            }
            _ => files,
        }
    };
    match parse_file::<T>(files, name) {
        Ok(v) => Some(v),
        Err(e) => {
            pr.errors.push(e);
            None
        }
    }
}
