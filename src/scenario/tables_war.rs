//! Typed rules tables of the military rules (5.4–5.6, sieges, 5.12):
//! `tables/{movement,battle,naval,siege,surrender}.toml`.
//!
//! The seeds give the structure (2.41 names the tables) but no numbers,
//! so every table ships with `source = "house: <reason>"`; a moderator
//! who owns the printed charts replaces the values. Read by
//! `rules::{movement,battle,naval,siege,surrender}`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// 5.5 / 2.24: Movement Allowances Table and the costs of a step.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MovementTable {
    pub source: String,
    /// Movement points of a stack without a commander.
    pub allowance: u32,
    /// Per-power allowance replacing `allowance` (power id -> points).
    #[serde(default)]
    pub by_power: BTreeMap<String, u32>,
    /// 2.24: points a commander adds to the stack he moves with, indexed
    /// by his rating (0, 1, 2, …); ratings beyond the list use the last.
    pub commander_bonus: Vec<u32>,
    /// Points to enter a province by land.
    pub province_cost: u32,
    /// 12.2.1: points to cross a single (type 1) arrow.
    pub arrow_single_cost: u32,
    /// 12.2.1: points to cross a double (type 2) arrow.
    pub arrow_double_cost: u32,
    /// 5.54 (house): a moving stack with at least this many times the
    /// divisions of the enemy army in a province it enters overruns it:
    /// no battle, the army is destroyed. 0 disables overruns.
    pub overrun_ratio: u32,
    /// 5.54 (house): movement points an overrun costs beyond the step.
    pub overrun_cost: u32,
}

impl MovementTable {
    /// The allowance of a stack of `power` with a commander of `rating`.
    pub fn allowance_for(&self, power: &str, rating: Option<u8>) -> u32 {
        let base = self.by_power.get(power).copied().unwrap_or(self.allowance);
        let bonus = match rating {
            None => 0,
            Some(r) => self
                .commander_bonus
                .get(r as usize)
                .or(self.commander_bonus.last())
                .copied()
                .unwrap_or(0),
        };
        base + bonus
    }
}

/// One combat option (5.6): its modifier to the side's combat rolls and
/// the shift to the losses the side takes.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CombatOption {
    pub id: String,
    /// `offensive` (the attacker's table) or `defensive`.
    pub side: String,
    pub modifier: i32,
    /// Added to the losses this side takes each round (may be negative).
    #[serde(default)]
    pub loss_shift: i32,
    /// Needs at least one cavalry division in the side.
    #[serde(default)]
    pub needs_cavalry: bool,
    /// Needs at least one artillery division in the side.
    #[serde(default)]
    pub needs_artillery: bool,
}

/// A cell of the Combat Options table: for a leader rating column and a
/// die range, the options it opens. FAQ98: a leader may choose any option
/// in his rating's column or in a lower-rated one (same die).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OptionCell {
    pub side: String,
    pub rating: u8,
    pub from: u32,
    pub to: u32,
    pub options: Vec<String>,
}

/// A row of a die-total lookup: totals in `from..=to` give `value`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub from: i32,
    pub to: i32,
    pub value: u32,
}

/// Look a total up in rows; below the first row gives 0, above the last
/// gives the last row's value.
pub fn lookup(rows: &[Row], total: i32) -> (u32, Option<&Row>) {
    if let Some(r) = rows.iter().find(|r| total >= r.from && total <= r.to) {
        return (r.value, Some(r));
    }
    match rows.iter().max_by_key(|r| r.to) {
        Some(r) if total > r.to => (r.value, Some(r)),
        _ => (0, None),
    }
}

/// 5.6 Approach to Battlefield Table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ApproachTable {
    /// Die + leader rating -> ghost divisions joining the side (2.25).
    pub ghosts: Vec<Row>,
    /// Modifier to every combat roll of the side that wins the approach
    /// (the operational edge, QA01).
    pub edge_modifier: i32,
}

/// 5.6 Attack Modifiers, Auxiliary Options and Massed Batteries.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BattleModifiers {
    /// Per point of the leader's rating.
    pub leader_rating: i32,
    /// Per division more than the enemy (cap below), both ways.
    pub per_division_difference: i32,
    pub division_difference_cap: i32,
    /// Auxiliary option: more cavalry divisions than the enemy.
    pub cavalry_superiority: i32,
    /// Massed batteries: at least `massed_batteries_min` artillery.
    pub massed_batteries_min: u32,
    pub massed_batteries: i32,
    /// 2.11: the defender fights in a province it owns.
    pub home_defence: i32,
}

/// 5.59 Pursuit: winner's die + (his cavalry − loser's cavalry) -> extra
/// losses of the loser.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PursuitTable {
    /// The winner pursues only with at least one cavalry division.
    pub needs_cavalry: bool,
    pub per_cavalry_difference: i32,
    pub losses: Vec<Row>,
}

/// 5.6 Battle table (house until the printed charts are entered).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BattleTable {
    pub source: String,
    /// Combat rounds per battle.
    pub rounds: u32,
    /// Ten-sided dice (2.42).
    pub die: u32,
    pub approach: ApproachTable,
    pub options: Vec<CombatOption>,
    pub columns: Vec<OptionCell>,
    pub modifiers: BattleModifiers,
    /// Die total of a round -> divisions the enemy loses.
    pub losses: Vec<Row>,
    /// Order in which a side gives up divisions: ghosts go first, then
    /// these arms (`infantry`, `cavalry`, `artillery`).
    pub loss_order: Vec<String>,
    pub pursuit: PursuitTable,
    /// Additional Troops: a friendly stack in an adjacent province joins
    /// before round 2 on a die of at least this (0: never).
    pub additional_troops_target: u32,
    /// Commander casualties: a commander on the losing side is lost on a
    /// die of at least `loser`, on the winning side at least `winner`.
    pub commander_casualty_loser: u32,
    pub commander_casualty_winner: u32,
    /// VP to the winning and from the losing major power.
    pub vp_winner: i64,
    pub vp_loser: i64,
}

impl BattleTable {
    pub fn option(&self, id: &str) -> Option<&CombatOption> {
        self.options.iter().find(|o| o.id == id)
    }
}

/// Siege Combat table (FAQ98 2.4; the values are house).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeTable {
    pub source: String,
    pub die: u32,
    /// Target number against a home province (2.12 a) before the
    /// intrinsic garrison is added.
    pub home_target: i32,
    /// Target against a minor province (2.12 b–d).
    pub minor_target: i32,
    /// Added when a garrison division (of occupation or conquest) holds it.
    pub garrison_division: i32,
    /// Target to oust a rebellion's ghost division (2.25).
    pub rebellion_target: i32,
    /// Each besieging corps beyond the first.
    pub per_extra_corps: i32,
    /// Per point of the best commander's rating.
    pub leader_rating: i32,
    /// Per artillery division among the besiegers.
    pub per_artillery: i32,
}

/// Naval Location/Interception Table, Naval Combat Table, movement and
/// transport (5.4).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NavalTable {
    pub source: String,
    pub die: u32,
    /// Sea zones a squadron may enter in one Naval Phase.
    pub allowance: u32,
    #[serde(default)]
    pub by_power: BTreeMap<String, u32>,
    /// Corps one squadron can carry.
    pub corps_per_squadron: u32,
    /// Interception succeeds on a die of at least this…
    pub intercept_target: i32,
    /// …less this per intercepting squadron beyond the first…
    pub intercept_per_extra_squadron: i32,
    /// …plus nationality modifiers (power id -> modifier, subtracted
    /// from the target for the interceptor).
    #[serde(default)]
    pub intercept_nationality: BTreeMap<String, i32>,
    /// Squadrons in a port may intercept in the zones the port borders.
    pub intercept_from_port: bool,
    /// Combat: die + squadrons × `per_squadron` + nationality modifier.
    pub per_squadron: i32,
    #[serde(default)]
    pub combat_nationality: BTreeMap<String, i32>,
    /// The loser loses one squadron per this many points of difference,
    /// at least one.
    pub points_per_loss: u32,
    /// Blockade running: leaving a blockaded port succeeds on a die of at
    /// most this (12.2.9 gives 2 on a d6; house on a d10).
    pub blockade_run_target: u32,
    /// 12.2.1 in the base game (without the option `naval`): an enemy
    /// fleet in a crossing arrow's zone cuts lines of communication (2.71)
    /// traced across it, as under the option. The base rules are silent:
    /// a house switch, its provenance in `arrows_cut_lines_source`.
    #[serde(default = "yes")]
    pub arrows_cut_lines: bool,
    #[serde(default)]
    pub arrows_cut_lines_source: String,
}

fn yes() -> bool {
    true
}

impl NavalTable {
    pub fn allowance_for(&self, power: &str) -> u32 {
        self.by_power.get(power).copied().unwrap_or(self.allowance)
    }
}

/// 5.12 Surrender: trigger and terms (house, rules-notes §2.8).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SurrenderTable {
    pub source: String,
    /// A power whose capital has been held by an enemy for this many
    /// consecutive turns must surrender at its Peace Step.
    pub capital_turns: u32,
    /// Enforced peace length in seasons (2.7).
    pub enforced_peace_seasons: u32,
    /// VP the surrendering power loses (never its allies, QA03).
    pub surrender_vp: i64,
    /// VP the victor gains.
    pub victor_vp: i64,
    /// Default reparations (Gold) when no terms are given.
    pub default_gold: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Row> {
        vec![
            Row {
                from: 1,
                to: 5,
                value: 0,
            },
            Row {
                from: 6,
                to: 8,
                value: 1,
            },
            Row {
                from: 9,
                to: 11,
                value: 2,
            },
        ]
    }

    #[test]
    fn lookup_finds_the_row_and_clamps_above_the_table() {
        assert_eq!(lookup(&rows(), 7).0, 1);
        assert_eq!(lookup(&rows(), 9).1.map(|r| r.from), Some(9));
        assert_eq!(lookup(&rows(), 30).0, 2);
        let r = rows();
        let (v, row) = lookup(&r, -4);
        assert_eq!(v, 0);
        assert!(row.is_none());
    }

    #[test]
    fn commanders_add_their_rating_bonus_and_high_ratings_use_the_last() {
        let t = MovementTable {
            source: "house: test".into(),
            allowance: 3,
            by_power: [("russia".to_string(), 2)].into_iter().collect(),
            commander_bonus: vec![0, 1, 1, 2],
            province_cost: 1,
            arrow_single_cost: 1,
            arrow_double_cost: 2,
            overrun_ratio: 4,
            overrun_cost: 1,
        };
        assert_eq!(t.allowance_for("france", None), 3);
        assert_eq!(t.allowance_for("france", Some(2)), 4);
        assert_eq!(t.allowance_for("france", Some(9)), 5);
        assert_eq!(t.allowance_for("russia", Some(1)), 3);
    }
}
