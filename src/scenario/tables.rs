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

/// All rules tables of a scenario.
#[derive(Clone, Debug, Serialize)]
pub struct Tables {
    pub build_costs: BuildCosts,
}

impl Tables {
    pub fn load(files: &ScenarioFiles, pr: &mut Problems) -> Option<Tables> {
        let build_costs = table(files, pr, "tables/build_costs.toml");
        Some(Tables {
            build_costs: build_costs?,
        })
    }

    /// (file, provenance) of every table.
    pub fn sources(&self) -> Vec<(String, Source)> {
        let all = [("tables/build_costs.toml", &self.build_costs.source)];
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
