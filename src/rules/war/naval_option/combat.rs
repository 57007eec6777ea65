//! The naval combat of the EiA option (12.2.6.1 steps three, five and six,
//! seven and nine), shared by open sea combat, blockade battles (12.2.6.2)
//! and port raids (12.2.6.3). What differs between them (which tables,
//! whether a chase is allowed, harbour defences) is decided by the caller.
//!
//! One round: both sides roll a d6 on their table at once, modified by the
//! nationality modifier and −1 per fleet after the second (12.2.6.1.4.1);
//! the chart gives the ships the other side has disabled and its morale
//! loss (`tables/naval_option.toml`). Dice: `<battle>/round-<r>/<side>`,
//! `<battle>/chase`, `<battle>/disabled/<owner>/<i>`.

use crate::dice::{Dice, DiceError};
use crate::ids::{Nation, PowerId};
use crate::rules::Why;
use crate::rules::war::naval::Phase;
use crate::scenario::Scenario;
use crate::scenario::tables_naval::{CrtTable, NavalOptionTable};
use crate::state::{State, UnitKey};
use std::collections::BTreeMap;

/// 12.2.6.1.3.2: morale of a nation's ships, in tenths (British and Dutch
/// 4.0, Austrian and Prussian 2.0, all others 3.0).
pub fn nation_morale(nation: &Nation) -> u32 {
    match nation.id() {
        "britain" | "holland" => 40,
        "austria" | "prussia" => 20,
        _ => 30,
    }
}

/// A fleet counter (squadron) in a battle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fleet {
    pub key: UnitKey,
    /// How reports name it (`British squadron 1`).
    pub name: String,
    /// Ships fit for combat.
    pub ships: u32,
    /// Ships disabled in this battle.
    pub disabled: u32,
}

/// One side of a naval battle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Force {
    /// How reports name the side (`blockader`, `attacker`, …); also the
    /// last part of its dice purposes.
    pub role: &'static str,
    /// The power commanding its first fleet (None: an uncontrolled minor).
    pub power: Option<PowerId>,
    pub fleets: Vec<Fleet>,
    /// 12.2.8.1: hulks fighting in a port raid (no morale).
    pub hulks: u32,
    pub hulks_disabled: u32,
    /// Final morale level (12.2.6.1.3.2), tenths.
    pub morale: u32,
    /// Cumulative morale loss, tenths.
    pub loss: u32,
    /// 11.8.2.2 (EiA option `political`): the change dominant status makes
    /// to a nation's nationality modifier, by nation id (absent: none).
    pub dominance: BTreeMap<String, i32>,
}

impl Force {
    pub fn new(scenario: &Scenario, state: &State, role: &'static str, keys: &[UnitKey]) -> Force {
        let table = &scenario.tables.naval_option;
        let fleets: Vec<Fleet> = keys
            .iter()
            .map(|k| Fleet {
                key: k.clone(),
                name: k.name(scenario),
                ships: ships_of(state, table, k),
                disabled: 0,
            })
            .collect();
        // 11.8.2.2: Britain's +1 and Austria's and Prussia's -1 as their
        // dominant status leaves them (read once: it cannot change in a battle)
        let dominance = fleets
            .iter()
            .filter_map(|f| {
                let p = f.key.nation.major()?;
                let base = table.nationality_of(f.key.nation.id());
                let d = crate::rules::political::dominance::naval_adjustment(state, Some(p), base);
                (d != 0).then(|| (f.key.nation.id().to_string(), d))
            })
            .collect();
        let mut f = Force {
            role,
            power: keys.first().and_then(|k| state.unit_power(k)),
            fleets,
            hulks: 0,
            hulks_disabled: 0,
            morale: 0,
            loss: 0,
            dominance,
        };
        f.morale = f.final_morale();
        f
    }

    /// Ships fit to fire (hulks included).
    pub fn active(&self) -> u32 {
        self.fleets.iter().map(|f| f.ships).sum::<u32>() + self.hulks
    }

    pub fn disabled(&self) -> u32 {
        self.fleets.iter().map(|f| f.disabled).sum::<u32>() + self.hulks_disabled
    }

    /// 12.2.6.1.3.2 (method 1 of 7.5.2.6.1 read as the average weighted by
    /// ships, rounded to the nearest tenth): hulks carry no morale
    /// (12.2.8.1).
    fn final_morale(&self) -> u32 {
        let ships: u32 = self.fleets.iter().map(|f| f.ships).sum();
        if ships == 0 {
            return 0;
        }
        let weighted: u32 = self.fleets.iter().map(|f| f.ships * nation_morale(&f.key.nation)).sum();
        (weighted + ships / 2) / ships
    }

    /// 12.2.6.1.5: the nationality modifier of the nation with most ships
    /// on the side (ties: the first fleet's), and the change its dominant
    /// status makes to it (11.8.2.2), already counted in the first.
    fn nationality(&self, table: &NavalOptionTable) -> (i32, i32) {
        let mut best: Option<(&Nation, u32)> = None;
        for f in &self.fleets {
            let n: u32 = self
                .fleets
                .iter()
                .filter(|g| g.key.nation == f.key.nation)
                .map(|g| g.ships)
                .sum();
            if best.is_none_or(|(_, m)| n > m) {
                best = Some((&f.key.nation, n));
            }
        }
        best.map_or((0, 0), |(n, _)| {
            let d = self.dominance.get(n.id()).copied().unwrap_or(0);
            (table.nationality_of(n.id()) + d, d)
        })
    }

    /// 12.2.6.1.6: broken (morale loss at or past its level) or every ship
    /// disabled.
    pub fn defeated(&self) -> bool {
        self.active() == 0 || (self.morale > 0 && self.loss >= self.morale)
    }

    /// Disable `n` ships, each from the fleet with most ships left (ties:
    /// the first); hulks last (12.2.8.1). Returns how many were hit.
    pub fn take(&mut self, n: u32) -> u32 {
        let mut hit = 0;
        for _ in 0..n {
            let best = (0..self.fleets.len())
                .filter(|&i| self.fleets[i].ships > 0)
                .max_by_key(|&i| (self.fleets[i].ships, std::cmp::Reverse(i)));
            match best {
                Some(i) => {
                    self.fleets[i].ships -= 1;
                    self.fleets[i].disabled += 1;
                }
                None if self.hulks > 0 => {
                    self.hulks -= 1;
                    self.hulks_disabled += 1;
                }
                None => break,
            }
            hit += 1;
        }
        hit
    }

    fn describe(&self) -> String {
        // A port's defence may be hulks alone (12.2.8.1): no empty list
        // before them.
        let mut parts: Vec<String> = self
            .fleets
            .iter()
            .map(|f| format!("{} ({} ships)", f.name, f.ships))
            .collect();
        if self.hulks > 0 {
            parts.push(format!("{} hulk(s)", self.hulks));
        }
        parts.join(", ")
    }
}

/// Ships of a squadron (its own count, else the table's default).
pub fn ships_of(state: &State, table: &NavalOptionTable, k: &UnitKey) -> u32 {
    state
        .squadron(&k.nation, k.number)
        .map_or(0, |s| s.ships.unwrap_or(table.ships_per_squadron))
}

fn tenths(v: u32) -> String {
    format!("{}.{}", v / 10, v % 10)
}

/// How a battle ended (12.2.6.1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The side (0 or 1) that won.
    Victor(usize),
    /// Both broke in the same round: neither is the victor.
    BothBroken,
    /// 12.2.6.1.6.2: three rounds without a decision.
    Inconclusive,
}

impl Ending {
    pub fn victor(self) -> Option<usize> {
        match self {
            Ending::Victor(i) => Some(i),
            _ => None,
        }
    }
}

/// What a battle's rounds produced: the report lines and dice.
#[derive(Clone, Debug, Default)]
pub struct Log {
    pub lines: Vec<Why>,
    pub dice: Vec<(String, u32)>,
}

impl Log {
    /// A report line: typed, or text read into its type (`Why::parse`).
    pub fn push(&mut self, l: impl Into<Why>) {
        self.lines.push(l.into());
    }

    fn roll(&mut self, dice: &mut dyn Dice, purpose: String) -> Result<u32, DiceError> {
        let d = dice.roll(&purpose, 6)?;
        self.dice.push((purpose, d));
        Ok(d)
    }
}

/// A battle being fought: the phase it belongs to (scenario, dice), the
/// name its dice carry (`<battle>`), and the report being written. The
/// steps after the rounds (`aftermath`, `nelson`) take it whole.
pub struct Fight<'p, 'a> {
    pub ph: &'p mut Phase<'a>,
    pub purpose: String,
    pub log: Log,
    /// What each power alone is told: how its standing orders decided a
    /// choice of the battle (the other side never sees them).
    pub notes: Vec<crate::rules::Outcome>,
}

impl<'p, 'a> Fight<'p, 'a> {
    pub fn new(ph: &'p mut Phase<'a>, purpose: String) -> Self {
        Fight {
            ph,
            purpose,
            log: Log::default(),
            notes: Vec::new(),
        }
    }

    /// A choice of `power` that its standing order decided, told to it
    /// alone (a default decides as the engine always did, and is not
    /// noted).
    pub fn told(
        &mut self,
        state: &State,
        power: Option<PowerId>,
        rule: &str,
        summary: String,
        decided: &crate::rules::war::standing::Decided,
    ) {
        if let (Some(p), crate::rules::war::standing::Decided::Standing(_)) = (power, decided) {
            self.notes.push(
                crate::rules::Outcome::new(rule, crate::rules::Kind::NavalTactic, summary)
                    .power(p)
                    .why(format!("{rule}: {decided}"))
                    .only(super::report::seers_of(state, [p])),
            );
        }
    }

    /// The next battle of the phase, its dice named `<kind>/<at>/<n>`
    /// (`n` counts the phase's battles).
    pub fn open(ph: &'p mut Phase<'a>, kind: &str, at: &str) -> Self {
        ph.battles += 1;
        let purpose = format!("{kind}/{at}/{}", ph.battles);
        Fight::new(ph, purpose)
    }

    /// 12.2.6.1.3–12.2.6.1.6: the rounds, on this battle's dice and log.
    pub fn rounds(&mut self, sides: &mut [Force; 2], rules: &Rules<'_>) -> Result<Ending, DiceError> {
        let table = &self.ph.scenario.tables.naval_option;
        fight(table, &mut *self.ph.dice, &self.purpose, sides, rules, &mut self.log)
    }

    /// 12.2.6.1.7: the victor's general chase (`minus` 1 after linear
    /// defence).
    pub fn chase(&mut self, sides: &mut [Force; 2], victor: usize, minus: i32) -> Result<(), DiceError> {
        let table = &self.ph.scenario.tables.naval_option;
        chase(
            table,
            &mut *self.ph.dice,
            &self.purpose,
            sides,
            victor,
            minus,
            &mut self.log,
        )
    }

    /// 12.2.6.1.7: the victor "may declare" the general chase: its
    /// power's standing order decides (default: it chases).
    pub fn declare_chase(
        &mut self,
        state: &State,
        sides: &mut [Force; 2],
        victor: usize,
        minus: i32,
    ) -> Result<(), DiceError> {
        let p = sides[victor].power;
        let (on, decided) = match p {
            Some(p) => crate::rules::war::standing::naval_chase(state, p),
            None => (
                true,
                crate::rules::war::standing::Decided::Default("a minor power's fleet chases".into()),
            ),
        };
        if on {
            self.chase(sides, victor, minus)?;
        } else {
            self.line(format!(
                "12.2.6.1.7: the {} declares no general chase",
                sides[victor].role
            ));
        }
        let who = p.map_or("the victor", |p| p.name());
        let verb = if on { "declares" } else { "declines" };
        self.told(
            state,
            p,
            "12.2.6.1.7",
            format!("{who} {verb} the general chase"),
            &decided,
        );
        Ok(())
    }

    pub fn scenario(&self) -> &'a Scenario {
        self.ph.scenario
    }

    /// A d6 named `<battle>/<what>`, kept in the log.
    pub fn roll(&mut self, what: &str) -> Result<u32, DiceError> {
        let purpose = format!("{}/{what}", self.purpose);
        self.log.roll(&mut *self.ph.dice, purpose)
    }

    pub fn line(&mut self, l: impl Into<Why>) {
        self.log.push(l);
    }
}

/// How the rounds are fought.
pub struct Rules<'a> {
    pub tables: [&'a CrtTable; 2],
    /// 12.2.6.1.6.2 / 12.2.6.3.2: at most three rounds.
    pub rounds: u32,
    /// 12.2.6.3.2: a raid goes on after the defender breaks, the
    /// defender no longer replying.
    pub raid: bool,
    /// 12.2.6.1.4.1: the melee tables and closing of an open sea combat.
    pub melee: Option<Melee<'a>>,
}

/// 12.2.6.1.4.1 (the melee tables): until a melee side closes, both fire
/// on `Rules::tables`; once one has closed, both fire on `closed`.
pub struct Melee<'a> {
    pub closed: [&'a CrtTable; 2],
    /// A side closes on a d6 of at most this after a round (0: never).
    pub close_at_most: [u32; 2],
    /// 12.2.6.1.4.2: taken off a side's closing roll (Nelson, 1 or 2).
    pub minus: [u32; 2],
}

/// 12.2.6.1.3–12.2.6.1.6: fight the rounds. `purpose` names the battle.
pub fn fight(
    table: &NavalOptionTable,
    dice: &mut dyn Dice,
    purpose: &str,
    sides: &mut [Force; 2],
    rules: &Rules<'_>,
    log: &mut Log,
) -> Result<Ending, DiceError> {
    // 12.2.6.1.3.1 / .3.2: forces and final morale, revealed to both
    for s in sides.iter() {
        log.push(format!(
            "12.2.6.1.3: {} {}: {}; morale {}",
            s.role,
            s.power.map_or("minor", |p| p.name()),
            s.describe(),
            tenths(s.morale)
        ));
    }
    let mut defender_broken = false;
    let mut closed = false;
    for round in 1..=rules.rounds {
        let tables = match &rules.melee {
            Some(m) if closed => m.closed,
            _ => rules.tables,
        };
        let firing = [sides[0].active(), sides[1].active()];
        let mut results = [None, None];
        for i in 0..2 {
            // 12.2.6.3.2: a broken raid defender no longer replies
            if rules.raid && i == 1 && defender_broken {
                continue;
            }
            let d = log.roll(dice, format!("{purpose}/round-{round}/{}", sides[i].role))?;
            let (nat, dominance) = sides[i].nationality(table);
            // 12.2.6.1.4.1: minus one per fleet after the second
            let armada = crate::rules::war::option_naval::size_penalty(sides[i].fleets.len());
            let m = d as i32 + nat + armada;
            let r = tables[i].result(m, firing[i]);
            log.push(Why::NavalFire {
                round,
                side: sides[i].role.to_string(),
                text: format!(
                "d6 {d} {nat:+} nationality{} {armada:+} fleets after the second = {m} on table {} with {} ships: {} disabled, morale loss {}",
                if dominance != 0 {
                    format!(" (changed by {dominance:+}, dominant status, 11.8.2.2)")
                } else {
                    String::new()
                },
                tables[i].id,
                firing[i],
                r.disabled,
                tenths(r.morale_tenths)
            ),
            });
            results[i] = Some(r);
        }
        for i in 0..2 {
            if let Some(r) = results[i] {
                let target = &mut sides[1 - i];
                target.take(r.disabled);
                target.loss += r.morale_tenths;
            }
        }
        for s in sides.iter() {
            log.push(Why::NavalAfterRound {
                round,
                side: s.role.to_string(),
                text: format!(
                    "has {} ships fit, {} disabled, morale loss {} of {}",
                    s.active(),
                    s.disabled(),
                    tenths(s.loss),
                    tenths(s.morale)
                ),
            });
        }
        let beaten = [sides[0].defeated(), sides[1].defeated()];
        if rules.raid {
            // 12.2.6.3.2: the raid ends when the attacker breaks or is
            // eliminated; a broken defender only stops replying.
            if beaten[1] {
                defender_broken = true;
            }
            if beaten[0] || sides[1].active() == 0 {
                break;
            }
            continue;
        }
        match beaten {
            [true, true] => {
                log.push("12.2.6.1.6: both sides break in the same round: neither is the victor");
                return Ok(Ending::BothBroken);
            }
            [true, false] => return Ok(victory(sides, 1, log)),
            [false, true] => return Ok(victory(sides, 0, log)),
            [false, false] => {}
        }
        if let Some(m) = &rules.melee
            && !closed
            && round < rules.rounds
        {
            closed = close(dice, purpose, sides, m, round, log)?;
        }
    }
    if rules.raid {
        return Ok(raid_ending(sides, log));
    }
    log.push(format!(
        "12.2.6.1.6.2: {} rounds without a decision: the battle is inconclusive",
        rules.rounds
    ));
    Ok(Ending::Inconclusive)
}

/// 12.2.6.1.4.1: after a round each melee side rolls to close (the
/// tactical chart's number, less Nelson's modifier, 12.2.6.1.4.2).
fn close(
    dice: &mut dyn Dice,
    purpose: &str,
    sides: &[Force; 2],
    m: &Melee<'_>,
    round: u32,
    log: &mut Log,
) -> Result<bool, DiceError> {
    for (i, side) in sides.iter().enumerate() {
        if m.close_at_most[i] == 0 {
            continue;
        }
        let d = log.roll(dice, format!("{purpose}/close-{round}/{}", side.role))?;
        let total = d as i32 - m.minus[i] as i32;
        let ok = total <= m.close_at_most[i] as i32;
        log.push(format!(
            "12.2.6.1.4.1: the {} tries to close: d6 {d}{} = {total} against at most {}: {}",
            side.role,
            if m.minus[i] > 0 {
                format!(" -{} Nelson (12.2.6.1.4.2)", m.minus[i])
            } else {
                String::new()
            },
            m.close_at_most[i],
            if ok {
                format!(
                    "closed; from the next round the tables are {} and {}",
                    m.closed[0].id, m.closed[1].id
                )
            } else {
                "not yet".into()
            }
        ));
        if ok {
            return Ok(true);
        }
    }
    Ok(false)
}

/// 12.2.6.1.6: one side is defeated, the other the victor.
fn victory(sides: &[Force; 2], v: usize, log: &mut Log) -> Ending {
    let l = &sides[1 - v];
    log.push(format!(
        "12.2.6.1.6: the {} {}: the {} is the victor",
        l.role,
        if l.active() == 0 {
            "has every ship disabled".to_string()
        } else {
            format!("breaks (morale loss {} of {})", tenths(l.loss), tenths(l.morale))
        },
        sides[v].role
    ));
    Ending::Victor(v)
}

/// 12.2.6.3.3: the victor of a raid both broke (or eliminated) the other
/// side and inflicted more losses than it received.
fn raid_ending(sides: &[Force; 2], log: &mut Log) -> Ending {
    let (a, d) = (&sides[0], &sides[1]);
    let (a_lost, d_lost) = (a.disabled(), d.disabled());
    let ending = if d.defeated() && d_lost > a_lost {
        Ending::Victor(0)
    } else if a.defeated() && a_lost > d_lost {
        Ending::Victor(1)
    } else {
        Ending::Inconclusive
    };
    log.push(format!(
        "12.2.6.3.3: {} lost {a_lost} ship(s), {} lost {d_lost}: {}",
        a.role,
        d.role,
        match ending {
            Ending::Victor(i) => format!("the {} is the victor", sides[i].role),
            _ => "a draw".into(),
        }
    ));
    ending
}

/// 12.2.6.1.7: the victor's general chase, one roll on the table the
/// chase chart gives for its morale loss; casualties only. `minus` is 1
/// when the victor's ships used linear defence.
pub fn chase(
    table: &NavalOptionTable,
    dice: &mut dyn Dice,
    purpose: &str,
    sides: &mut [Force; 2],
    victor: usize,
    minus: i32,
    log: &mut Log,
) -> Result<(), DiceError> {
    let Some(id) = table.chase_table(sides[victor].loss) else {
        return Ok(());
    };
    let Some(t) = table.crt(id) else {
        return Ok(());
    };
    let firing: u32 = sides[victor].fleets.iter().map(|f| f.ships).sum();
    let d = log.roll(dice, format!("{purpose}/chase"))?;
    let m = d as i32 - minus;
    let r = t.result(m, firing);
    let hit = sides[1 - victor].take(r.disabled);
    log.push(format!(
        "12.2.6.1.7: general chase by the {} (morale loss {} -> table {id}): d6 {d}{} with {firing} ships: {hit} more disabled, morale ignored",
        sides[victor].role,
        tenths(sides[victor].loss),
        if minus != 0 { format!(" -{minus} linear defence") } else { String::new() }
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ScriptedDice;
    use std::collections::BTreeMap;

    fn fleet(nation: &str, number: u32, ships: u32) -> Fleet {
        let key = UnitKey::squadron(nation.parse().unwrap(), number);
        Fleet {
            name: key.to_string(),
            key,
            ships,
            disabled: 0,
        }
    }

    fn force(role: &'static str, fleets: Vec<Fleet>) -> Force {
        let mut f = Force {
            role,
            power: None,
            fleets,
            hulks: 0,
            hulks_disabled: 0,
            morale: 0,
            loss: 0,
            dominance: BTreeMap::new(),
        };
        f.morale = f.final_morale();
        f
    }

    fn table() -> NavalOptionTable {
        crate::scenario::Scenario::embedded("1805").unwrap().tables.naval_option
    }

    #[test]
    fn morale_levels_are_the_seeds() {
        // 12.2.6.1.3.2
        for (n, m) in [
            ("britain", 40),
            ("holland", 40),
            ("austria", 20),
            ("prussia", 20),
            ("france", 30),
            ("spain", 30),
        ] {
            assert_eq!(nation_morale(&n.parse().unwrap()), m, "{n}");
        }
    }

    #[test]
    fn a_mixed_side_averages_morale_by_ships() {
        // 9 French ships (3.0) and 3 British (4.0): 3.25 -> 3.3 (nearest tenth)
        let f = force("a", vec![fleet("france", 1, 9), fleet("britain", 1, 3)]);
        assert_eq!(f.morale, 33);
        // 1 British and 3 French: 3.25 as well, 13/4 = 3.25 -> 3.3
        let f = force("a", vec![fleet("france", 1, 3), fleet("britain", 1, 1)]);
        assert_eq!(f.morale, 33);
        assert_eq!(force("a", vec![]).morale, 0);
    }

    #[test]
    fn hits_fall_on_the_fullest_fleet_then_on_hulks() {
        let mut f = force("a", vec![fleet("france", 1, 2), fleet("france", 2, 3)]);
        f.hulks = 1;
        // 3 -> 2 first, then the tie 2/2 goes to the first fleet
        assert_eq!(f.take(2), 2);
        assert_eq!((f.fleets[0].ships, f.fleets[1].ships), (1, 2));
        assert_eq!(f.take(10), 4);
        assert_eq!(f.active(), 0);
        assert_eq!(f.disabled(), 6);
        assert_eq!(f.hulks_disabled, 1);
        assert!(f.defeated());
    }

    #[test]
    fn a_side_breaks_when_its_loss_reaches_its_morale() {
        let mut f = force("a", vec![fleet("france", 1, 4)]);
        f.loss = 29;
        assert!(!f.defeated());
        f.loss = 30;
        assert!(f.defeated());
    }

    #[test]
    fn the_nationality_is_the_largest_nation_s() {
        let t = table();
        let f = force("a", vec![fleet("france", 1, 5), fleet("britain", 1, 6)]);
        assert_eq!(f.nationality(&t), (1, 0));
        let f = force(
            "a",
            vec![fleet("russia", 1, 4), fleet("britain", 1, 3), fleet("russia", 2, 4)],
        );
        assert_eq!(f.nationality(&t), (-1, 0));
    }

    fn dice(v: &[(&str, u32)]) -> ScriptedDice {
        let m: BTreeMap<String, u32> = v.iter().map(|(k, d)| (k.to_string(), *d)).collect();
        ScriptedDice::new(m, None)
    }

    #[test]
    fn three_rounds_without_a_decision_are_inconclusive() {
        let t = table();
        let tb = t.crt("2-1").unwrap();
        let mut sides = [
            force("a", vec![fleet("france", 1, 8)]),
            force("b", vec![fleet("spain", 1, 8)]),
        ];
        let mut d = ScriptedDice::new(BTreeMap::new(), Some(1));
        let mut log = Log::default();
        let rules = Rules {
            tables: [tb, tb],
            rounds: 3,
            raid: false,
            melee: None,
        };
        let e = fight(&t, &mut d, "x", &mut sides, &rules, &mut log).unwrap();
        assert_eq!(e, Ending::Inconclusive);
        assert_eq!(log.dice.len(), 6);
        assert_eq!(sides[0].loss, 9);
    }

    #[test]
    fn both_breaking_in_one_round_leaves_no_victor() {
        let t = table();
        let tb = t.crt("6-3").unwrap();
        let mut sides = [
            force("a", vec![fleet("austria", 1, 8)]),
            force("b", vec![fleet("prussia", 1, 8)]),
        ];
        let mut d = dice(&[("x/round-1/a", 6), ("x/round-1/b", 6)]);
        let mut log = Log::default();
        let rules = Rules {
            tables: [tb, tb],
            rounds: 3,
            raid: false,
            melee: None,
        };
        // round 1: 6 - 1 (nationality) on 6-3 = 1.4 of 2.0 each; round 2: 2.8
        let mut d2 = dice(&[
            ("x/round-1/a", 6),
            ("x/round-1/b", 6),
            ("x/round-2/a", 6),
            ("x/round-2/b", 6),
        ]);
        let e = fight(&t, &mut d2, "x", &mut sides, &rules, &mut log).unwrap();
        assert_eq!(e, Ending::BothBroken);
        assert_eq!(e.victor(), None);
        // a single round of 1.4 against 2.0 and 4.0 decides nothing
        let mut sides = [
            force("a", vec![fleet("austria", 1, 8)]),
            force("b", vec![fleet("britain", 1, 8)]),
        ];
        let rules1 = Rules {
            tables: [tb, tb],
            rounds: 1,
            raid: false,
            melee: None,
        };
        assert_eq!(
            fight(&t, &mut d, "x", &mut sides, &rules1, &mut log).unwrap(),
            Ending::Inconclusive
        );
        // every line of the rounds is typed, and reads back as its type
        assert!(!log.lines.is_empty());
        for l in &log.lines {
            assert!(!matches!(l, Why::Text(_)), "untyped battle line: {l}");
            assert!(
                !matches!(Why::parse(&l.to_string()), Why::Text(_)),
                "a history line does not read back typed: {l}"
            );
        }
        assert!(log.lines.iter().any(|l| matches!(l, Why::NavalFire { round: 1, .. })));
        assert!(
            log.lines
                .iter()
                .any(|l| matches!(l, Why::NavalAfterRound { round: 1, .. }))
        );
    }

    #[test]
    fn the_chase_rolls_on_the_table_of_the_victor_s_loss() {
        let t = table();
        let mut sides = [
            force("a", vec![fleet("france", 1, 10)]),
            force("b", vec![fleet("spain", 1, 10)]),
        ];
        sides[0].loss = 7; // -> table 3-2: 6 - 1 (linear defence) = 5: 15 % of 10 = 2
        let mut d = dice(&[("x/chase", 6)]);
        let mut log = Log::default();
        chase(&t, &mut d, "x", &mut sides, 0, 1, &mut log).unwrap();
        assert_eq!(sides[1].fleets[0].ships, 8);
        assert_eq!(sides[0].loss, 7);
        assert_eq!(sides[1].loss, 0, "a chase ignores morale");
        assert!(log.lines[0].contains("table 3-2"), "{:?}", log.lines);
    }

    #[test]
    fn the_second_side_chases_the_first_when_it_is_the_victor() {
        let t = table();
        let mut sides = [
            force("a", vec![fleet("france", 1, 10)]),
            force("b", vec![fleet("spain", 1, 10)]),
        ];
        sides[1].loss = 7;
        let mut d = dice(&[("x/chase", 6)]);
        let mut log = Log::default();
        chase(&t, &mut d, "x", &mut sides, 1, 1, &mut log).unwrap();
        assert_eq!(sides[0].fleets[0].ships, 8, "the loser is the first side");
        assert_eq!(sides[1].fleets[0].ships, 10, "the victor loses nothing");
        assert!(log.lines[0].contains("general chase by the b"), "{:?}", log.lines);
    }
}
