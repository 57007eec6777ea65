//! Rules tables of a scenario, one TOML file each under `tables/`.
//!
//! Every table carries `source` (`seed <rule>` or `house: <reason>`), so a
//! moderator who owns the printed charts can see which to replace. To add
//! a table: write `tables/<name>.toml`, add a typed struct here, a field
//! in [`Tables`] and a line in [`Tables::load`].

use super::{Problems, ScenarioFiles, parse_file};
use crate::map::Source;
use serde::{Deserialize, Serialize};

/// 2.71 Build Costs Abroad: list cost × LOC length -> adjusted cost.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BuildCosts {
    pub source: String,
    /// Percent added per LOC step (QA01: "about 5 % per province").
    pub percent_per_step: u32,
    /// How the raised cost rounds: `nearest` (halves up), `up` or `down`.
    pub rounding: String,
}

/// All rules tables of a scenario.
#[derive(Clone, Debug, Serialize)]
pub struct Tables {
    pub build_costs: BuildCosts,
    // rules II (military, see `tables_war`)
    pub movement: super::tables_war::MovementTable,
    pub battle: super::tables_war::BattleTable,
    pub siege: super::tables_war::SiegeTable,
    pub naval: super::tables_war::NavalTable,
    pub surrender: super::tables_war::SurrenderTable,
}

impl Tables {
    pub fn load(files: &ScenarioFiles, pr: &mut Problems) -> Option<Tables> {
        let build_costs = table(files, pr, "tables/build_costs.toml");
        // rules II (military)
        let movement = table(files, pr, "tables/movement.toml");
        let battle = table(files, pr, "tables/battle.toml");
        let siege = table(files, pr, "tables/siege.toml");
        let naval = table(files, pr, "tables/naval.toml");
        let surrender = table(files, pr, "tables/surrender.toml");
        Some(Tables {
            build_costs: build_costs?,
            movement: movement?,
            battle: battle?,
            siege: siege?,
            naval: naval?,
            surrender: surrender?,
        })
    }

    /// (file, provenance) of every table.
    pub fn sources(&self) -> Vec<(String, Source)> {
        let all = [
            ("tables/build_costs.toml", &self.build_costs.source),
            // rules II (military)
            ("tables/movement.toml", &self.movement.source),
            ("tables/battle.toml", &self.battle.source),
            ("tables/siege.toml", &self.siege.source),
            ("tables/naval.toml", &self.naval.source),
            ("tables/surrender.toml", &self.surrender.source),
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
pub fn table<T: serde::de::DeserializeOwned>(files: &ScenarioFiles, pr: &mut Problems, name: &str) -> Option<T> {
    match parse_file::<T>(files, name) {
        Ok(v) => Some(v),
        Err(e) => {
            pr.errors.push(e);
            None
        }
    }
}
