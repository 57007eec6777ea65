//! Typed table of the EiA optional naval rules (seed 003, 12.2.x):
//! `tables/naval_option.toml`, read by `rules::war::naval_option`.
//!
//! The seed gives the procedure and a few numbers (morale levels, the
//! blockade-running die, the upkeep in $); those stay in the code beside
//! their rule. What it takes from the core *Empires in Arms* charts (the
//! combat resolution chart, the nationality modifiers, the tables of a
//! blockade battle and a port raid, harbour defences, ships per fleet,
//! political points) is not in the seeds: this table holds it, with its
//! provenance, so a moderator who owns the charts replaces the values.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `tables/naval_option.toml`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NavalOptionTable {
    pub source: String,
    /// Ships of the line in a squadron (an EiA fleet) that has no count
    /// of its own in the state.
    pub ships_per_squadron: u32,
    /// Gold per EiA money point ($).
    pub gold_per_dollar: i64,
    /// Gold per EiA manpower point (La Guerre has none; rules-notes §6.3).
    pub gold_per_manpower: i64,
    /// 12.2.6.1.5: nationality modifiers to the combat die (power or
    /// minor id -> modifier); absent means 0.
    #[serde(default)]
    pub nationality: BTreeMap<String, i32>,
    /// 12.2.6.1.6.3: political points a victor gains (and the loser
    /// loses) per fleet counter of the beaten side, and Victory Points
    /// per political point (La Guerre has no political status display).
    pub pp_per_fleet: i64,
    pub vp_per_pp: i64,
    /// 12.2.6.2: the tables of a blockade battle.
    pub blockade_battle: BlockadeTables,
    /// 12.2.6.3.2: the tables of a port raid.
    pub port_raid: RaidTables,
    /// 12.2.6.3.1: harbour defence strength of a port (province id ->
    /// strength); ports not listed have `default`.
    pub harbour_defence: HarbourDefence,
    /// 12.2.6.1.7: the general chase chart, rows by the victor's total
    /// morale loss (tenths), the first row whose `max_loss` is at least
    /// it gives the table to roll on.
    pub chase: Vec<ChaseRow>,
    /// The combat resolution chart: named tables.
    pub crt: Vec<CrtTable>,
    /// Naval movement points between a port, its box and sea zones.
    pub distance: NavalDistance,
    /// 12.2.7: Nelson (house arrival and second roll).
    pub nelson: NelsonTable,
    /// 12.2.6.1.2 / 12.2.6.1.4: the Tactical Naval Chart.
    pub tactics: Vec<TacticRow>,
    /// 12.2.1: the "River" line of the combat results table, for an
    /// attacker who crossed an arrow against enemy corps: La Guerre's
    /// battle table has no such line, so a modifier to the attacker's
    /// roll in each combat round stands for it.
    pub river_line: i32,
}

/// Naval movement points (rules-notes §2.4): port to its blockade box,
/// box to its sea zone, sea zone to the next.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NavalDistance {
    pub port_to_box: u32,
    pub box_to_zone: u32,
    pub zone_to_zone: u32,
}

/// 12.2.7 Nelson: the squadron he starts with and the house second roll.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NelsonTable {
    /// British squadron number he commands from the start.
    pub squadron: u32,
    /// The second roll (d6): killed at most this, else wounded.
    pub killed_at_most: u32,
    /// Turns a wounded Nelson is away.
    pub wounded_turns: u32,
}

/// 12.2.6.1.1: the naval tactical chits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Chit {
    LinearDefence,
    LinearAttack,
    Melee,
}

impl Chit {
    pub const ALL: [Chit; 3] = [Chit::LinearDefence, Chit::LinearAttack, Chit::Melee];

    pub fn id(self) -> &'static str {
        match self {
            Chit::LinearDefence => "linear_defence",
            Chit::LinearAttack => "linear_attack",
            Chit::Melee => "melee",
        }
    }

    /// How a report names it (`linear defence`).
    pub fn name(self) -> &'static str {
        match self {
            Chit::LinearDefence => "linear defence",
            Chit::LinearAttack => "linear attack",
            Chit::Melee => "melee",
        }
    }

    /// Words of an order (`linear defence`, `linear-defense`, `melee`).
    pub fn parse(text: &str) -> Option<Chit> {
        let w: String = text
            .to_ascii_lowercase()
            .chars()
            .filter(|c| c.is_ascii_alphabetic())
            .collect();
        match w.as_str() {
            "lineardefence" | "lineardefense" | "defence" | "defense" => Some(Chit::LinearDefence),
            "linearattack" | "attack" => Some(Chit::LinearAttack),
            "melee" => Some(Chit::Melee),
            _ => None,
        }
    }
}

/// One cell of the Tactical Naval Chart, for a side's chit against the
/// enemy's.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TacticRow {
    pub own: Chit,
    pub enemy: Chit,
    /// Table before the battle closes.
    pub table: String,
    /// Table once it has closed (12.2.6.1.4.1).
    pub closed: String,
    /// A melee side closes on a d6 of at most this after a round (0: never).
    pub close_at_most: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BlockadeTables {
    /// Table of the blockading force.
    pub blockader: String,
    /// Table of the blockaded force (running or breaking out).
    pub blockaded: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RaidTables {
    pub attacker: String,
    pub defender: String,
    /// 12.2.6.3.1: the table harbour defences fire on ("5-2" in the seed).
    pub harbour: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HarbourDefence {
    pub default: u32,
    #[serde(default)]
    pub ports: BTreeMap<String, u32>,
}

impl HarbourDefence {
    pub fn of(&self, port: &str) -> u32 {
        self.ports.get(port).copied().unwrap_or(self.default)
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChaseRow {
    pub max_loss: u32,
    pub table: String,
}

/// One table of the combat resolution chart: for a modified d6 (1 to 6,
/// beyond clamped), the percentage of the firing side's ships that the
/// target side has disabled (rounded half up) and the morale loss (in
/// tenths) it inflicts on the target.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CrtTable {
    pub id: String,
    pub disabled_percent: [u32; 6],
    pub morale_tenths: [u32; 6],
}

/// A result of the chart: ships disabled and morale loss inflicted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrtResult {
    pub disabled: u32,
    pub morale_tenths: u32,
}

impl CrtTable {
    /// The row of a modified die (clamped to 1..=6) for `firing` ships.
    pub fn result(&self, modified: i32, firing: u32) -> CrtResult {
        let row = modified.clamp(1, 6) as usize - 1;
        CrtResult {
            disabled: (firing * self.disabled_percent[row] + 50) / 100,
            morale_tenths: self.morale_tenths[row],
        }
    }
}

impl NavalOptionTable {
    pub fn crt(&self, id: &str) -> Option<&CrtTable> {
        self.crt.iter().find(|t| t.id == id)
    }
    pub fn nationality_of(&self, nation: &str) -> i32 {
        self.nationality.get(nation).copied().unwrap_or(0)
    }
    /// 12.2.6.1.7: the chase table for the victor's morale loss.
    pub fn chase_table(&self, loss_tenths: u32) -> Option<&str> {
        self.chase
            .iter()
            .find(|r| loss_tenths <= r.max_loss)
            .map(|r| r.table.as_str())
    }
    /// 12.2.6.1.2: the chart's cell for `own` against `enemy`.
    pub fn tactic(&self, own: Chit, enemy: Chit) -> Option<&TacticRow> {
        self.tactics.iter().find(|r| r.own == own && r.enemy == enemy)
    }
    /// Every table a reference names exists, and the tactical chart has a
    /// cell for every pair of chits (checked at load).
    pub fn missing_tables(&self) -> Vec<String> {
        let mut named: Vec<&str> = vec![
            &self.blockade_battle.blockader,
            &self.blockade_battle.blockaded,
            &self.port_raid.attacker,
            &self.port_raid.defender,
            &self.port_raid.harbour,
        ];
        named.extend(self.chase.iter().map(|r| r.table.as_str()));
        named.extend(self.tactics.iter().flat_map(|r| [r.table.as_str(), r.closed.as_str()]));
        let mut missing: Vec<String> = named
            .into_iter()
            .filter(|n| self.crt(n).is_none())
            .map(str::to_string)
            .collect();
        for own in Chit::ALL {
            for enemy in Chit::ALL {
                if self.tactic(own, enemy).is_none() {
                    missing.push(format!("tactics {} against {}", own.id(), enemy.id()));
                }
            }
        }
        missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> CrtTable {
        CrtTable {
            id: "x".into(),
            disabled_percent: [0, 10, 10, 20, 20, 30],
            morale_tenths: [2, 4, 5, 6, 8, 10],
        }
    }

    #[test]
    fn a_die_beyond_the_chart_reads_its_last_row() {
        assert_eq!(t().result(9, 10), t().result(6, 10));
        assert_eq!(t().result(-2, 10), t().result(1, 10));
        assert_eq!(t().result(6, 10).disabled, 3);
        assert_eq!(t().result(1, 10).morale_tenths, 2);
    }

    #[test]
    fn chits_read_from_order_words_and_every_pair_needs_a_chart_cell() {
        assert_eq!(Chit::parse("Linear Defense"), Some(Chit::LinearDefence));
        assert_eq!(Chit::parse("linear-attack"), Some(Chit::LinearAttack));
        assert_eq!(Chit::parse("MELEE"), Some(Chit::Melee));
        assert_eq!(Chit::parse("broadside"), None);
        for c in Chit::ALL {
            assert_eq!(Chit::parse(c.name()), Some(c));
        }
        let mut t = crate::scenario::Scenario::embedded("1805").unwrap().tables.naval_option;
        assert!(t.missing_tables().is_empty());
        assert_eq!(
            t.tactic(Chit::Melee, Chit::LinearDefence).map(|r| r.close_at_most),
            Some(3)
        );
        t.tactics.retain(|r| !(r.own == Chit::Melee && r.enemy == Chit::Melee));
        assert_eq!(t.missing_tables(), vec!["tactics melee against melee".to_string()]);
    }

    #[test]
    fn casualties_round_half_up() {
        // 15 ships at 10 % = 1.5 -> 2; 14 ships = 1.4 -> 1
        assert_eq!(t().result(2, 15).disabled, 2);
        assert_eq!(t().result(2, 14).disabled, 1);
    }
}
