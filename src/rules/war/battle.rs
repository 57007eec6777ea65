//! 5.6 Land battles, in the structure of the Battle Sequence (2.41):
//!
//! 1. withdrawal before battle (standing order `withdraw`, default stand);
//! 2. Approach to Battlefield: each side rolls die + leader rating; the
//!    Approach table may add ghost divisions (2.25) and the higher total
//!    wins the operational edge (QA01); an intrinsic garrison in the
//!    battle province fights for its original owner as ghost divisions
//!    (2.25);
//! 3. combat options: each leader rolls on the Combat Options table and
//!    may choose any option of his rating's column or a lower one (FAQ98
//!    2.6), chosen by standing order or the default (see `standing`);
//! 4. auxiliary options, massed batteries and attack modifiers;
//! 5. combat rounds: die + modifiers on the loss table, losses taken from
//!    ghosts first then by `loss_order`, returned to the force pool (2.51);
//!    Additional Troops may join the defender before round 2;
//! 6. the winner; pursuit (5.59); commander casualties; the loser retreats
//!    (standing order `retreat`, default in `standing`) or, with nowhere
//!    to go, is destroyed.
//!
//! Every number comes from `tables/battle.toml`. Dice purposes:
//! `land-battle/<province>/<n>/<step>/<side>`.

use super::control::{friendly, hostile, name, to_pool};
use super::standing::{self, Decided};
use crate::dice::{Dice, DiceError};
use crate::ids::{Nation, PowerId};
use crate::map::Owner;
use crate::orders::ast::Situation;
use crate::rules::Kind;
use crate::rules::Outcome;
use crate::rules::Why;
use crate::rules::outcome::DieRef;
use crate::rules::political;
use crate::rules::side::same_side;
use crate::scenario::tables_war::{BattleTable, Row, lookup};
use crate::scenario::{Arm, Scenario};
use crate::state::{State, UnitKey, nation_adjective, nation_name};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Attacker,
    Defender,
}

impl Side {
    fn id(self) -> &'static str {
        match self {
            Side::Attacker => "attacker",
            Side::Defender => "defender",
        }
    }

    fn other(self) -> Side {
        match self {
            Side::Attacker => Side::Defender,
            Side::Defender => Side::Attacker,
        }
    }
}

struct Force {
    side: Side,
    corps: Vec<UnitKey>,
    powers: BTreeSet<PowerId>,
    /// The power whose leader and standing orders speak for the side.
    principal: Option<PowerId>,
    leader: Option<(String, u8)>,
    ghosts: u32,
    modifier: i32,
    option: Option<String>,
    loss_shift: i32,
    inflicted: u32,
    lost: u32,
}

/// Divisions of a force by arm.
#[derive(Clone, Copy, Default)]
struct Divisions {
    infantry: u32,
    cavalry: u32,
    artillery: u32,
}

impl Divisions {
    fn total(self) -> u32 {
        self.infantry + self.cavalry + self.artillery
    }
}

fn divisions(state: &State, corps: &[UnitKey]) -> Divisions {
    let mut by_arm = Divisions::default();
    for k in corps {
        if let Some(c) = state.corps(&k.nation, k.number) {
            for d in &c.divisions {
                match d.arm {
                    Arm::Infantry => by_arm.infantry += 1,
                    Arm::Cavalry => by_arm.cavalry += 1,
                    Arm::Artillery => by_arm.artillery += 1,
                }
            }
        }
    }
    by_arm
}

fn count(state: &State, corps: &[UnitKey]) -> u32 {
    divisions(state, corps).total()
}

fn describe(scenario: &Scenario, state: &State, force: &Force) -> String {
    let by_arm = divisions(state, &force.corps);
    let names: Vec<String> = force.corps.iter().map(|k| k.name(scenario)).collect();
    format!(
        "{} ({} inf, {} cav, {} art{})",
        names.join(", "),
        by_arm.infantry,
        by_arm.cavalry,
        by_arm.artillery,
        if force.ghosts > 0 {
            format!(", {} ghost", force.ghosts)
        } else {
            String::new()
        }
    )
}

/// The best commander of `powers` in `province`.
fn leader(state: &State, province: &str, powers: &BTreeSet<PowerId>) -> Option<(String, u8)> {
    state
        .commanders
        .iter()
        .filter(|c| c.location.as_deref() == Some(province) && powers.contains(&c.nation))
        .max_by(|a, b| a.rating.cmp(&b.rating).then(b.name.cmp(&a.name)))
        .map(|c| (c.name.clone(), c.rating))
}

/// Options open to a leader of `rating` who rolled `die` (FAQ98 2.6:
/// his column and every lower one), in table order.
pub fn available(t: &BattleTable, side: &str, rating: u8, die: u32) -> Vec<String> {
    let opened: BTreeSet<&str> = t
        .columns
        .iter()
        .filter(|c| c.side == side && c.rating <= rating && die >= c.from && die <= c.to)
        .flat_map(|c| c.options.iter().map(String::as_str))
        .collect();
    t.options
        .iter()
        .filter(|o| o.side == side && opened.contains(o.id.as_str()))
        .map(|o| o.id.clone())
        .collect()
}

/// Default choice: highest modifier, then lowest loss shift, then table order.
fn best(t: &BattleTable, legal: &[String]) -> Option<String> {
    let mut bestv: Option<(&str, i32, i32)> = None;
    for id in legal {
        if let Some(o) = t.option(id) {
            let better = match bestv {
                None => true,
                Some((_, m, l)) => o.modifier > m || (o.modifier == m && o.loss_shift < l),
            };
            if better {
                bestv = Some((&o.id, o.modifier, o.loss_shift));
            }
        }
    }
    bestv.map(|b| b.0.to_string())
}

/// Take `n` losses from a force: ghosts first, then by `loss_order`, from
/// the largest corps first (ties by corps id). Returns what was lost.
fn take_losses(scenario: &Scenario, state: &mut State, force: &mut Force, n: u32) -> Vec<String> {
    let table = &scenario.tables.battle;
    let mut lost = Vec::new();
    let mut left = n;
    let ghosts_lost = left.min(force.ghosts);
    if ghosts_lost > 0 {
        force.ghosts -= ghosts_lost;
        left -= ghosts_lost;
        lost.push(format!("{ghosts_lost} ghost"));
    }
    for arm_id in &table.loss_order {
        let Some(arm) = Arm::parse(arm_id) else { continue };
        while left > 0 {
            let target = force
                .corps
                .iter()
                .filter_map(|k| state.corps(&k.nation, k.number).map(|c| (k, c)))
                .filter(|(_, c)| c.divisions.iter().any(|d| d.arm == arm))
                .max_by(|a, b| a.1.divisions.len().cmp(&b.1.divisions.len()).then(b.0.cmp(a.0)))
                .map(|(k, _)| k.clone());
            let Some(k) = target else { break };
            let Some(c) = state.corps_mut(&k.nation, k.number) else {
                break;
            };
            let Some(pos) = c.divisions.iter().rposition(|d| d.arm == arm) else {
                break;
            };
            let d = c.divisions.remove(pos);
            to_pool(state, &d);
            lost.push(format!(
                "{} {} from {}",
                nation_adjective(scenario, &d.nation),
                arm.short(),
                k.name(scenario)
            ));
            left -= 1;
        }
    }
    force.lost += n - left;
    lost
}

/// The modifier of one side in a combat round, with one reason per term.
fn round_modifier(
    table: &BattleTable,
    state: &State,
    own: &Force,
    enemy: &Force,
    defender_home: bool,
    edge: Option<Side>,
) -> (i32, Vec<String>) {
    let m = &table.modifiers;
    let mut total = 0;
    let mut reasons = Vec::new();
    let mut add = |v: i32, what: String| {
        if v != 0 {
            total += v;
            reasons.push(format!("{v:+} {what}"));
        }
    };
    if let Some((name, rating)) = &own.leader {
        add(
            m.leader_rating * *rating as i32,
            format!("leader {name} rating {rating}"),
        );
    }
    let own_divisions = divisions(state, &own.corps);
    let enemy_divisions = divisions(state, &enemy.corps);
    let diff = (own_divisions.total() + own.ghosts) as i32 - (enemy_divisions.total() + enemy.ghosts) as i32;
    let cap = m.division_difference_cap;
    add(
        (diff * m.per_division_difference).clamp(-cap, cap),
        format!("division difference {diff:+} (capped at {cap})"),
    );
    if own_divisions.cavalry > enemy_divisions.cavalry {
        add(
            m.cavalry_superiority,
            format!(
                "auxiliary: cavalry superiority {} to {}",
                own_divisions.cavalry, enemy_divisions.cavalry
            ),
        );
    }
    if own_divisions.artillery >= m.massed_batteries_min {
        add(
            m.massed_batteries,
            format!("massed batteries ({} artillery)", own_divisions.artillery),
        );
    }
    if own.side == Side::Defender && defender_home {
        add(m.home_defence, "defending its own province (2.11)".into());
    }
    if edge == Some(own.side) {
        add(
            table.approach.edge_modifier,
            "operational edge from the approach".into(),
        );
    }
    if let Some(o) = own.option.as_ref().and_then(|id| table.option(id)) {
        add(o.modifier, format!("combat option {}", o.id));
    }
    (total, reasons)
}

/// Where a beaten (or withdrawing) group of `power` goes: (province,
/// what decided). `None`: nowhere, the group is destroyed.
pub fn retreat_to(
    scenario: &Scenario,
    state: &State,
    power: Option<PowerId>,
    nation: &Nation,
    province: &str,
    came_from: Option<&str>,
) -> Option<(String, Decided)> {
    let safe = |p: &str| !state.corps_in(p).any(|c| hostile(state, nation, c)) && scenario.map.province(p).is_some();
    let ok_ground = |p: &str| match power {
        Some(pw) => friendly(state, pw, p),
        None => state.provinces.get(p).and_then(|ps| ps.controller.as_ref()) == Some(nation),
    };
    let neighbours: Vec<&str> = scenario.map.land_neighbours(province).collect();
    if let Some(pw) = power {
        for pref in standing::retreat_preferences(state, pw) {
            if neighbours.contains(&pref.as_str()) && safe(&pref) && (ok_ground(&pref) || came_from == Some(&pref)) {
                let shown = scenario.map.province(&pref).map_or(pref.as_str(), |p| p.name.as_str());
                return Some((pref.clone(), Decided::Standing(format!("retreat to {shown}"))));
            }
        }
    }
    if let Some(c) = came_from
        && c != province
        && safe(c)
    {
        return Some((
            c.to_string(),
            Decided::Default("back to the province it came from".into()),
        ));
    }
    let mut cands: Vec<(bool, usize, &str)> = neighbours
        .iter()
        .filter(|p| safe(p) && ok_ground(p))
        .map(|p| {
            let home = power.is_some_and(|pw| {
                scenario
                    .map
                    .province(p)
                    .is_some_and(|x| x.kind.is_home() && x.owner == Owner::Major(pw))
            });
            let threats = scenario
                .map
                .land_neighbours(p)
                .filter(|q| state.corps_in(q).any(|c| hostile(state, nation, c)))
                .count();
            (!home, threats, *p)
        })
        .collect();
    cands.sort();
    cands.first().map(|(_, _, p)| {
        (
            p.to_string(),
            Decided::Default("adjacent friendly province, home first, fewest enemy neighbours".into()),
        )
    })
}

fn commanding(state: &State, k: &UnitKey) -> Option<PowerId> {
    state.unit_power(k)
}

/// Move a beaten force out of `province` (or destroy it), with its
/// commanders. Returns why-lines.
fn retreat(
    scenario: &Scenario,
    state: &mut State,
    f: &Force,
    province: &str,
    came_from: &BTreeMap<UnitKey, String>,
) -> Vec<Why> {
    let mut why = Vec::new();
    // group by nation (each nation's corps retreat together)
    let mut groups: BTreeMap<Nation, Vec<UnitKey>> = BTreeMap::new();
    for k in &f.corps {
        groups.entry(k.nation.clone()).or_default().push(k.clone());
    }
    let mut dest_of_power: BTreeMap<Option<PowerId>, String> = BTreeMap::new();
    for (nation, keys) in groups {
        // the nation as players read it ("France"), never its id
        let named = nation_name(scenario, &nation);
        let power = keys.first().and_then(|k| state.unit_power(k));
        let cf = keys.iter().find_map(|k| came_from.get(k)).cloned();
        // 12.2.1 (EiA option `naval`): an invader beaten in the turn it
        // crossed an arrow surrenders instead of retreating
        let crossed = cf
            .as_deref()
            .is_some_and(|c| super::option_naval::crossed_arrow(scenario, c, province));
        let dest = if crossed && super::option_naval::enabled(state) {
            why.push(Why::rule(
                "12.2.1",
                format!("{named} crossed an arrow this turn and may not retreat"),
            ));
            None
        } else {
            retreat_to(scenario, state, power, &nation, province, cf.as_deref())
        };
        match dest {
            Some((dest, decided)) => {
                for k in &keys {
                    if let Some(c) = state.corps_mut(&k.nation, k.number) {
                        c.location = Some(dest.clone());
                    }
                }
                why.push(format!("{named} retreats to {} ({decided})", name(scenario, &dest)).into());
                dest_of_power.entry(power).or_insert(dest);
            }
            None => {
                for k in &keys {
                    let divs = state
                        .corps_mut(&k.nation, k.number)
                        .map(|c| {
                            c.location = None;
                            std::mem::take(&mut c.divisions)
                        })
                        .unwrap_or_default();
                    for d in &divs {
                        to_pool(state, d);
                    }
                }
                why.push(format!(
                    "{named} has no province to retreat to and is destroyed (house: divisions return to the pool, 2.51)"
                ).into());
            }
        }
    }
    for cm in state.commanders.iter_mut() {
        if cm.location.as_deref() == Some(province) && f.powers.contains(&cm.nation) {
            match dest_of_power.get(&Some(cm.nation)) {
                Some(d) => cm.location = Some(d.clone()),
                None => {
                    cm.location = None;
                    why.push(format!("{} is captured with his army", cm.name).into());
                }
            }
        }
    }
    why
}

/// Corps left with no division leave the map (house: an empty corps
/// counter goes back to the mat).
fn clear_empty(scenario: &Scenario, state: &mut State, province: &str) -> Vec<String> {
    let mut why = Vec::new();
    for c in state.corps.iter_mut() {
        if c.location.as_deref() == Some(province) && c.divisions.is_empty() {
            c.location = None;
            why.push(format!("{} is destroyed (no divisions left)", c.key().name(scenario)));
        }
    }
    why
}

/// Fight the battle in `province`, the `n`th this phase, started by the
/// moving power `active`. No battle (empty result) if either side is
/// missing.
pub fn fight(
    scenario: &Scenario,
    state: &mut State,
    dice: &mut dyn Dice,
    active: PowerId,
    province: &str,
    n: u32,
    came_from: &BTreeMap<UnitKey, String>,
) -> Result<Vec<Outcome>, DiceError> {
    let Some(mut battle) = Battle::join(scenario, state, dice, active, province, n) else {
        return Ok(Vec::new());
    };
    if battle.withdrawal_before_battle() {
        return Ok(battle.outcomes());
    }
    battle.river = super::option_naval::river_line(scenario, battle.state, province, &battle.attacker.corps, came_from);
    battle.approach()?;
    battle.intrinsic_garrison();
    battle.combat_options()?;
    battle.combat_rounds()?;
    let winner = battle.winner();
    battle.pursuit(winner)?;
    battle.commander_casualties(winner)?;
    battle.clear_empty_corps();
    battle.loser_retreats(winner, came_from);
    battle.victory_points(winner);
    battle.summarise(winner);
    Ok(battle.outcomes())
}

/// One land battle in progress: both forces and the report being written,
/// advanced one step of the Battle Sequence (2.41) per method.
struct Battle<'a> {
    scenario: &'a Scenario,
    table: &'a BattleTable,
    state: &'a mut State,
    dice: &'a mut dyn Dice,
    active: PowerId,
    province: &'a str,
    /// The battle's number this phase, part of every dice purpose.
    number: u32,
    attacker: Force,
    defender: Force,
    attacker_name: String,
    defender_name: String,
    /// The side that won the approach (QA01), if either did.
    edge: Option<Side>,
    /// The defender fights in its own home province (2.11, 2.25).
    defender_home: bool,
    /// 12.2.1 (option `naval`): the attacker crossed an arrow to fight
    /// here, on the "River" line (`option_naval::river_line`).
    river: bool,
    /// The detailed outcome, seen by both sides.
    report: Outcome,
}

/// The force of the winner and of the loser.
fn winner_and_loser<'f>(
    attacker: &'f mut Force,
    defender: &'f mut Force,
    winner: Side,
) -> (&'f mut Force, &'f mut Force) {
    match winner {
        Side::Attacker => (attacker, defender),
        Side::Defender => (defender, attacker),
    }
}

/// The power with most divisions among `keys` (ties to the lower id).
fn principal_of(state: &State, keys: &[UnitKey]) -> Option<PowerId> {
    let mut divisions_by_power: BTreeMap<PowerId, usize> = BTreeMap::new();
    for k in keys {
        if let (Some(p), Some(c)) = (commanding(state, k), state.corps(&k.nation, k.number)) {
            *divisions_by_power.entry(p).or_default() += c.divisions.len();
        }
    }
    divisions_by_power
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|x| x.0)
}

fn new_force(state: &State, province: &str, side: Side, principal: Option<PowerId>, corps: Vec<UnitKey>) -> Force {
    let powers: BTreeSet<PowerId> = corps.iter().filter_map(|k| commanding(state, k)).collect();
    Force {
        side,
        principal,
        leader: leader(state, province, &powers),
        powers,
        corps,
        ghosts: 0,
        modifier: 0,
        option: None,
        loss_shift: 0,
        inflicted: 0,
        lost: 0,
    }
}

/// How a force is named in the report: its principal power, else the
/// nation of its first corps.
fn force_name(scenario: &Scenario, force: &Force) -> String {
    match force.principal {
        Some(p) => p.name().to_string(),
        None => force
            .corps
            .first()
            .map(|k| crate::state::nation_name(scenario, &k.nation).to_string())
            .unwrap_or_default(),
    }
}

fn modifiers_text(reasons: &[String]) -> String {
    if reasons.is_empty() {
        "(no modifiers)".to_string()
    } else {
        reasons.join(" ")
    }
}

fn loss_shift_text(whose: &str, shift: i32) -> String {
    if shift != 0 {
        format!(", {whose} option shifts losses {shift:+}")
    } else {
        String::new()
    }
}

fn loss_row_text(row: Option<&Row>) -> String {
    row.map(|r| format!("loss table row {}..{}", r.from, r.to))
        .unwrap_or_else(|| "below the loss table".into())
}

impl<'a> Battle<'a> {
    /// The forces in `province`: the active power's side against every
    /// hostile corps. `None` when either side has no division.
    fn join(
        scenario: &'a Scenario,
        state: &'a mut State,
        dice: &'a mut dyn Dice,
        active: PowerId,
        province: &'a str,
        number: u32,
    ) -> Option<Battle<'a>> {
        let me = Nation::Major(active);
        let mut attacking = Vec::new();
        let mut defending = Vec::new();
        for c in state.corps_in(province) {
            if c.divisions.is_empty() {
                continue;
            }
            match state.corps_power(c) {
                Some(p) if same_side(state, active, p) => attacking.push(c.key()),
                _ if hostile(state, &me, c) => defending.push(c.key()),
                _ => {}
            }
        }
        if attacking.is_empty() || defending.is_empty() {
            return None;
        }
        let defending_principal = principal_of(state, &defending);
        let attacker = new_force(state, province, Side::Attacker, Some(active), attacking);
        let defender = new_force(state, province, Side::Defender, defending_principal, defending);
        // Who sees the battle: both sides and the players who order them.
        let mut seers: BTreeSet<PowerId> = attacker.powers.union(&defender.powers).copied().collect();
        for p in seers.clone() {
            if let Some(o) = state.ordered_by(p) {
                seers.insert(o);
            }
        }
        let (attacker_name, defender_name) = (force_name(scenario, &attacker), force_name(scenario, &defender));
        let report = Outcome::new("5.6", Kind::Battle, String::new())
            .power(active)
            .at(province)
            .only(seers.into_iter().collect())
            .why(format!(
                "attacker {attacker_name}: {}",
                describe(scenario, state, &attacker)
            ))
            .why(format!(
                "defender {defender_name}: {}",
                describe(scenario, state, &defender)
            ));
        Some(Battle {
            scenario,
            table: &scenario.tables.battle,
            state,
            dice,
            active,
            province,
            number,
            attacker,
            defender,
            attacker_name,
            defender_name,
            edge: None,
            defender_home: false,
            river: false,
            report,
        })
    }

    fn note(&mut self, line: impl Into<Why>) {
        self.report.why.push(line.into());
    }

    /// Roll for `step` of this battle on `side`'s behalf and record the die.
    fn roll(&mut self, step: &str, side: Side) -> Result<u32, DiceError> {
        let purpose = format!("land-battle/{}/{}/{step}/{}", self.province, self.number, side.id());
        let result = self.dice.roll(&purpose, self.table.die)?;
        self.report.dice.push(DieRef { purpose, result });
        Ok(result)
    }

    fn force(&self, side: Side) -> &Force {
        match side {
            Side::Attacker => &self.attacker,
            Side::Defender => &self.defender,
        }
    }

    fn force_mut(&mut self, side: Side) -> &mut Force {
        match side {
            Side::Attacker => &mut self.attacker,
            Side::Defender => &mut self.defender,
        }
    }

    fn take_losses(&mut self, side: Side, n: u32) -> Vec<String> {
        let force = match side {
            Side::Attacker => &mut self.attacker,
            Side::Defender => &mut self.defender,
        };
        take_losses(self.scenario, self.state, force, n)
    }

    /// Step 1: the defender's standing order may withdraw it before
    /// battle. True when it did (the battle is over).
    fn withdrawal_before_battle(&mut self) -> bool {
        let Some(principal) = self.defender.principal else {
            self.note("the defender has no standing orders (default: stand and fight)");
            return false;
        };
        let own = count(self.state, &self.defender.corps);
        let enemy = count(self.state, &self.attacker.corps);
        let (withdraws, decided) = standing::withdraws(self.state, principal, own, enemy);
        if !withdraws {
            let line = format!("{} stands ({decided})", self.defender_name);
            self.note(line);
            return false;
        }
        let lines = retreat(
            self.scenario,
            self.state,
            &self.defender,
            self.province,
            &BTreeMap::new(),
        );
        self.report.summary = format!(
            "{} withdraws from {} before battle with {}",
            self.defender_name,
            name(self.scenario, self.province),
            self.attacker_name
        );
        self.note(format!("withdrawal before battle ({decided})"));
        for line in lines {
            self.note(line);
        }
        true
    }

    /// Step 2: Approach to Battlefield: die + leader rating per side; the
    /// Approach table gives ghost divisions (2.25), the higher total the
    /// operational edge (QA01).
    fn approach(&mut self) -> Result<(), DiceError> {
        let mut totals = [0i32; 2];
        for (i, side) in [Side::Attacker, Side::Defender].into_iter().enumerate() {
            let die = self.roll("approach", side)?;
            let rating = self.force(side).leader.as_ref().map(|l| l.1).unwrap_or(0);
            let total = die as i32 + rating as i32;
            totals[i] = total;
            let (ghosts, row) = lookup(&self.table.approach.ghosts, total);
            self.force_mut(side).ghosts += ghosts;
            self.note(format!(
                "approach {}: die {die} + rating {rating} = {total} -> {ghosts} ghost division(s){}",
                side.id(),
                row.map(|r| format!(" (row {}..{})", r.from, r.to)).unwrap_or_default()
            ));
        }
        self.edge = match totals[0].cmp(&totals[1]) {
            std::cmp::Ordering::Greater => Some(Side::Attacker),
            std::cmp::Ordering::Less => Some(Side::Defender),
            std::cmp::Ordering::Equal => None,
        };
        if let Some(edge) = self.edge {
            self.note(format!("operational edge: {}", edge.id()));
        }
        Ok(())
    }

    /// 2.25: a defender in its original owner's home province is joined by
    /// the province's intrinsic garrison, as ghost divisions.
    fn intrinsic_garrison(&mut self) {
        let province = self.scenario.map.province(self.province);
        let controller = self
            .state
            .provinces
            .get(self.province)
            .and_then(|ps| ps.controller.clone());
        let owner = province.and_then(super::control::original_owner);
        self.defender_home = owner.as_ref().is_some_and(|owner| {
            controller.as_ref() == Some(owner)
                && (self.defender.corps.iter().any(|k| &k.nation == owner)
                    || self
                        .state
                        .commanding_power(owner)
                        .is_some_and(|p| self.defender.powers.contains(&p)))
        });
        if self.defender_home
            && let Some(p) = province
            && p.garrison > 0
        {
            self.defender.ghosts += p.garrison;
            self.note(Why::rule(
                "2.25",
                format!(
                    "the intrinsic garrison of {} ({}) fights as ghost divisions",
                    p.name, p.garrison
                ),
            ));
        }
    }

    /// Step 3: each leader rolls on the Combat Options table and takes an
    /// option of his column or a lower one (FAQ98 2.6), by standing order
    /// or the default (`best`).
    fn combat_options(&mut self) -> Result<(), DiceError> {
        let table = self.table;
        for side in [Side::Attacker, Side::Defender] {
            let (table_side, situation) = match side {
                Side::Attacker => ("offensive", Situation::Attacking),
                Side::Defender => ("defensive", Situation::Defending),
            };
            let die = self.roll("options", side)?;
            let force = self.force(side);
            let rating = force.leader.as_ref().map(|l| l.1).unwrap_or(0);
            let by_arm = divisions(self.state, &force.corps);
            let open: Vec<String> = available(table, table_side, rating, die)
                .into_iter()
                .filter(|id| {
                    table.option(id).is_some_and(|op| {
                        (!op.needs_cavalry || by_arm.cavalry > 0) && (!op.needs_artillery || by_arm.artillery > 0)
                    })
                })
                .collect();
            let wanted = force
                .principal
                .and_then(|pw| standing::wanted_option(self.state, pw, situation));
            let (choice, decided) = match wanted {
                Some(w) if open.contains(&w) => (Some(w.clone()), Decided::Standing(format!("combat option {w}"))),
                Some(w) => (
                    best(table, &open),
                    Decided::Default(format!(
                        "standing option {w} is not open (rating {rating}, die {die}); best open option"
                    )),
                ),
                None => (best(table, &open), Decided::Default("best open option".into())),
            };
            let line = format!(
                "{} options (rating {rating} column and lower, die {die}): {} -> {} by {} ({decided})",
                side.id(),
                if open.is_empty() {
                    "none".to_string()
                } else {
                    open.join(", ")
                },
                choice.clone().unwrap_or_else(|| "none".into()),
                force
                    .leader
                    .as_ref()
                    .map(|l| l.0.clone())
                    .unwrap_or_else(|| "no leader".into()),
            );
            self.note(line);
            let force = self.force_mut(side);
            if let Some(op) = choice.as_ref().and_then(|c| table.option(c)) {
                force.loss_shift = op.loss_shift;
            }
            force.option = choice;
        }
        Ok(())
    }

    /// Steps 4 and 5: modifiers and combat rounds; Additional Troops may
    /// join the defender before round 2. Stops early when a side is gone.
    fn combat_rounds(&mut self) -> Result<(), DiceError> {
        for round in 1..=self.table.rounds {
            if round == 2 && self.table.additional_troops_target > 0 {
                self.additional_troops()?;
            }
            if count(self.state, &self.attacker.corps) == 0
                || count(self.state, &self.defender.corps) + self.defender.ghosts == 0
            {
                break;
            }
            self.combat_round(round)?;
        }
        Ok(())
    }

    /// Additional Troops (house): stacks of the defending principal in
    /// adjacent provinces, with no enemy beside them, march to the guns on
    /// a die of at least the target.
    fn additional_troops(&mut self) -> Result<(), DiceError> {
        let Some(principal) = self.defender.principal else {
            return Ok(());
        };
        let target = self.table.additional_troops_target;
        let neighbours: Vec<String> = self
            .scenario
            .map
            .land_neighbours(self.province)
            .map(str::to_string)
            .collect();
        for neighbour in neighbours {
            let joiners: Vec<UnitKey> = self
                .state
                .corps_in(&neighbour)
                .filter(|c| commanding(self.state, &c.key()) == Some(principal) && !c.divisions.is_empty())
                .map(|c| c.key())
                .collect();
            if joiners.is_empty()
                || self
                    .state
                    .corps_in(&neighbour)
                    .any(|c| hostile(self.state, &Nation::Major(principal), c))
            {
                continue;
            }
            let die = self.roll(&format!("additional/{neighbour}"), Side::Defender)?;
            let from = name(self.scenario, &neighbour);
            if die < target {
                self.note(format!(
                    "additional troops: die {die} < {target}: the stack in {from} does not arrive"
                ));
                continue;
            }
            for j in &joiners {
                if let Some(c) = self.state.corps_mut(&j.nation, j.number) {
                    c.location = Some(self.province.to_string());
                }
                self.defender.corps.push(j.clone());
            }
            self.note(format!(
                "additional troops: die {die} >= {target}: {} join from {from}",
                joiners
                    .iter()
                    .map(|j| j.name(self.scenario))
                    .collect::<Vec<_>>()
                    .join(", "),
            ));
        }
        Ok(())
    }

    /// One combat round: each side's die + modifiers on the loss table
    /// gives the other side's losses, shifted by that side's option.
    fn combat_round(&mut self, round: u32) -> Result<(), DiceError> {
        let table = self.table;
        let (attacker_modifier, attacker_reasons) = round_modifier(
            table,
            self.state,
            &self.attacker,
            &self.defender,
            self.defender_home,
            self.edge,
        );
        let (defender_modifier, defender_reasons) = round_modifier(
            table,
            self.state,
            &self.defender,
            &self.attacker,
            self.defender_home,
            self.edge,
        );
        // 11.6.2.1: improved Ottoman morale (EiA political option)
        let (mut attacker_modifier, mut attacker_reasons) = political::forces::with_morale(
            self.scenario,
            self.state,
            &self.attacker.corps,
            attacker_modifier,
            attacker_reasons,
        );
        let (mut defender_modifier, mut defender_reasons) = political::forces::with_morale(
            self.scenario,
            self.state,
            &self.defender.corps,
            defender_modifier,
            defender_reasons,
        );
        // 11.8.2.1 (EiA option political): morale of a dominant power
        for (force, modifier, reasons) in [
            (&self.attacker, &mut attacker_modifier, &mut attacker_reasons),
            (&self.defender, &mut defender_modifier, &mut defender_reasons),
        ] {
            let political = crate::rules::political::dominance::battle_modifier;
            if let Some((m, why)) = political(self.scenario, self.state, force.principal, &force.corps) {
                *modifier += m;
                reasons.push(why);
            }
        }
        // 12.2.1 (EiA option `naval`): the "River" line for an attacker
        // who crossed an arrow against enemy corps
        if self.river {
            let m = self.scenario.tables.naval_option.river_line;
            attacker_modifier += m;
            attacker_reasons.push(format!(
                "{m:+} River line (12.2.1: crossed an arrow against enemy corps)"
            ));
        }
        self.attacker.modifier = attacker_modifier;
        self.defender.modifier = defender_modifier;
        let step = format!("round-{round}");
        let attacker_die = self.roll(&step, Side::Attacker)?;
        let defender_die = self.roll(&step, Side::Defender)?;
        let attacker_total = attacker_die as i32 + attacker_modifier;
        let defender_total = defender_die as i32 + defender_modifier;
        let (to_defender, attacker_row) = lookup(&table.losses, attacker_total);
        let (to_attacker, defender_row) = lookup(&table.losses, defender_total);
        let to_defender = (to_defender as i32 + self.defender.loss_shift).max(0) as u32;
        let to_attacker = (to_attacker as i32 + self.attacker.loss_shift).max(0) as u32;
        self.note(format!(
            "round {round}: attacker die {attacker_die} {} = {attacker_total} ({}{}) -> defender loses {to_defender}; defender die {defender_die} {} = {defender_total} ({}{}) -> attacker loses {to_attacker}",
            modifiers_text(&attacker_reasons),
            loss_row_text(attacker_row),
            loss_shift_text("defender's", self.defender.loss_shift),
            modifiers_text(&defender_reasons),
            loss_row_text(defender_row),
            loss_shift_text("attacker's", self.attacker.loss_shift),
        ));
        let attacker_losses = self.take_losses(Side::Attacker, to_attacker);
        let defender_losses = self.take_losses(Side::Defender, to_defender);
        self.attacker.inflicted += to_defender;
        self.defender.inflicted += to_attacker;
        if !attacker_losses.is_empty() {
            self.note(format!("attacker losses: {}", attacker_losses.join(", ")));
        }
        if !defender_losses.is_empty() {
            self.note(format!("defender losses: {}", defender_losses.join(", ")));
        }
        Ok(())
    }

    /// Step 6: the attacker wins if it has divisions left and the defender
    /// none, or inflicted more losses (house; ties to the defender).
    fn winner(&mut self) -> Side {
        let attacker_left = count(self.state, &self.attacker.corps);
        let defender_left = count(self.state, &self.defender.corps);
        let winner = if attacker_left > 0 && (defender_left == 0 || self.attacker.inflicted > self.defender.inflicted) {
            Side::Attacker
        } else {
            Side::Defender
        };
        self.note(format!(
            "result: attacker inflicted {} and lost {}; defender inflicted {} and lost {}; {} wins (house: more losses inflicted wins, ties to the defender)",
            self.attacker.inflicted,
            self.attacker.lost,
            self.defender.inflicted,
            self.defender.lost,
            winner.id()
        ));
        winner
    }

    /// 5.59: a winner with cavalry (if the table asks for it) pursues a
    /// loser still on the field.
    fn pursuit(&mut self, winner: Side) -> Result<(), DiceError> {
        let loser = winner.other();
        let table = self.table;
        let winner_cavalry = divisions(self.state, &self.force(winner).corps).cavalry;
        let loser_cavalry = divisions(self.state, &self.force(loser).corps).cavalry;
        if count(self.state, &self.force(loser).corps) == 0 || (table.pursuit.needs_cavalry && winner_cavalry == 0) {
            self.note("no pursuit (the winner has no cavalry or the loser is gone)");
            return Ok(());
        }
        let die = self.roll("pursuit", winner)?;
        let cavalry_modifier = (winner_cavalry as i32 - loser_cavalry as i32) * table.pursuit.per_cavalry_difference;
        let total = die as i32 + cavalry_modifier;
        let (extra, _) = lookup(&table.pursuit.losses, total);
        let lost = self.take_losses(loser, extra);
        self.note(format!(
            "pursuit: die {die} {cavalry_modifier:+} cavalry difference = {total} -> {extra} more loss(es){}",
            if lost.is_empty() {
                String::new()
            } else {
                format!(": {}", lost.join(", "))
            }
        ));
        Ok(())
    }

    /// Commander casualties: every commander of either side in the
    /// province rolls; at or above his side's target he falls.
    fn commander_casualties(&mut self, winner: Side) -> Result<(), DiceError> {
        let loser = winner.other();
        let present: Vec<(String, PowerId)> = self
            .state
            .commanders
            .iter()
            .filter(|c| c.location.as_deref() == Some(self.province))
            .map(|c| (c.name.clone(), c.nation))
            .collect();
        for (commander, power) in present {
            let side = if self.force(loser).powers.contains(&power) {
                loser
            } else if self.force(winner).powers.contains(&power) {
                winner
            } else {
                continue;
            };
            let target = if side == loser {
                self.table.commander_casualty_loser
            } else {
                self.table.commander_casualty_winner
            };
            let key: String = commander
                .to_ascii_lowercase()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join("-");
            let die = self.roll(&format!("commander/{key}"), side)?;
            if die >= target {
                if let Some(c) = self.state.commanders.iter_mut().find(|c| c.name == commander) {
                    c.location = None;
                    c.arrives = None;
                }
                self.note(format!("commander casualty: {commander} falls (die {die} >= {target})"));
            }
        }
        Ok(())
    }

    fn clear_empty_corps(&mut self) {
        for line in clear_empty(self.scenario, self.state, self.province) {
            self.note(line);
        }
    }

    /// The loser's corps still in the province retreat, or are destroyed
    /// with nowhere to go.
    fn loser_retreats(&mut self, winner: Side, came_from: &BTreeMap<UnitKey, String>) {
        let (_, lose) = winner_and_loser(&mut self.attacker, &mut self.defender, winner);
        let state = &*self.state;
        lose.corps.retain(|k| {
            state
                .corps(&k.nation, k.number)
                .is_some_and(|c| c.location.as_deref() == Some(self.province))
        });
        let lines = retreat(self.scenario, self.state, lose, self.province, came_from);
        for line in lines {
            self.note(line);
        }
    }

    /// Victory points for the winner and the loser (house).
    fn victory_points(&mut self, winner: Side) {
        let (win, lose) = (self.force(winner).principal, self.force(winner.other()).principal);
        if let Some(p) = win {
            self.state.power_mut(p).vp += self.table.vp_winner;
            *self.report.vp.entry(p).or_default() += self.table.vp_winner;
        }
        if let Some(p) = lose {
            self.state.power_mut(p).vp += self.table.vp_loser;
            *self.report.vp.entry(p).or_default() += self.table.vp_loser;
        }
    }

    fn summarise(&mut self, winner: Side) {
        let (winner_name, loser_name) = match winner {
            Side::Attacker => (&self.attacker_name, &self.defender_name),
            Side::Defender => (&self.defender_name, &self.attacker_name),
        };
        self.report.summary = format!(
            "Battle of {}: {winner_name} defeats {loser_name} (losses: attacker {}, defender {})",
            name(self.scenario, self.province),
            self.attacker.lost,
            self.defender.lost
        );
    }

    /// The detailed report for both sides and the one-line public result.
    fn outcomes(self) -> Vec<Outcome> {
        let public = Outcome::new("5.6", Kind::BattleResult, self.report.summary.clone())
            .power(self.active)
            .at(self.province);
        vec![self.report, public]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// The default combat option (no standing order): the highest
    /// modifier, and on a tie the lower loss shift, in whatever order the
    /// legal options come (shipped table: grand assault +2 with loss +1,
    /// combined arms +2 with loss 0).
    #[test]
    fn the_default_option_breaks_a_modifier_tie_by_the_lower_loss_shift() {
        let s = Scenario::embedded("1805").unwrap();
        let t = &s.tables.battle;
        let combined = Some("combined_arms".to_string());
        assert_eq!(best(t, &ids(&["grand_assault", "combined_arms"])), combined);
        assert_eq!(best(t, &ids(&["combined_arms", "grand_assault"])), combined);
        assert_eq!(
            best(t, &ids(&["probe", "cavalry_charge"])),
            Some("cavalry_charge".into())
        );
        assert_eq!(best(t, &ids(&["no_such_option"])), None);
    }
}
