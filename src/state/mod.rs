//! The state of a game: calendar, powers, provinces, units, relations.
//!
//! Serialised as `state.toml` with `format = 1` (see [`StateFile`]); the
//! file form is checked against the scenario by [`State::check_against`] when
//! loaded, so every later step can trust ids. [`State::initial`] builds the
//! 1805 set-up from a scenario (3.0–3.6). Pure: no I/O.

pub mod naval_standing;
pub mod political;
pub mod view;

pub use political::{Kingdom, Political};

use crate::ids::{Nation, PhaseId, PowerId, Step, Turn};
use crate::map::Owner;
use crate::scenario::{Arm, CorpsSpec, Pool, Scenario, SquadronSpec};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The schema version written into every state file.
pub const FORMAT: u32 = 1;

/// 3.31: what a major power is, politically.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Control {
    /// 3.2: represented by a player.
    Player,
    /// 3.31: not at war with nor allied to any Player Country.
    Inactive,
    /// 3.31: at war with a PC and without PC allies; run by `by`.
    Controlled { by: PowerId },
    /// 3.31: allied with one PC, which runs its units.
    Allied { with: PowerId },
}

impl Control {
    pub fn is_player(&self) -> bool {
        matches!(self, Control::Player)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerState {
    pub control: Control,
    pub gold: i64,
    pub vp: i64,
    /// 4.221: costs that could not be paid, carried over; nothing else may
    /// be bought while this is above zero.
    #[serde(default)]
    pub debt: i64,
    /// 3.1: the VP bid that won this power (0 without a bid).
    #[serde(default)]
    pub bid: u32,
    /// 4.213: consecutive turns the capital has been held by foreign forces.
    #[serde(default)]
    pub capital_lost_turns: u32,
    /// Divisions and squadrons not on the map (force pool); `"unknown"`
    /// in another power's state file (2.5), read as nothing known.
    #[serde(deserialize_with = "pool_or_unknown")]
    pub pool: PoolState,
    /// 4.256: years of participation in the Continental System.
    #[serde(default)]
    pub embargo_years: u32,
    /// Whether this power is in the Continental System now (4.243).
    #[serde(default)]
    pub in_embargo: bool,
    /// 5.123: the turn this power last surrendered (it may not move into
    /// provinces it does not control during that turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surrendered: Option<Turn>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolState {
    pub infantry: u32,
    pub cavalry: u32,
    pub artillery: u32,
    pub squadrons: u32,
}

impl From<Pool> for PoolState {
    fn from(p: Pool) -> Self {
        PoolState {
            infantry: p.infantry,
            cavalry: p.cavalry,
            artillery: p.artillery,
            squadrons: p.squadrons,
        }
    }
}

impl PoolState {
    pub fn of(&self, arm: Arm) -> u32 {
        match arm {
            Arm::Infantry => self.infantry,
            Arm::Cavalry => self.cavalry,
            Arm::Artillery => self.artillery,
        }
    }
    pub fn of_mut(&mut self, arm: Arm) -> &mut u32 {
        match arm {
            Arm::Infantry => &mut self.infantry,
            Arm::Cavalry => &mut self.cavalry,
            Arm::Artillery => &mut self.artillery,
        }
    }
}

/// A minor power's standing: who holds its forces and its unbuilt pool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinorState {
    /// The major power that has conquered it (3.41) or controls its
    /// forces (3.45), if any.
    pub controller: Option<PowerId>,
    pub pool: PoolState,
    /// 3.42: a Loyal Minor Power that has been remapped into being.
    #[serde(default)]
    pub formed: bool,
}

/// A garrison in a province (2.23): one infantry division of a nation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Garrison {
    pub nation: Nation,
    /// The power a kingdom's minor division garrisons for (11.1.2,
    /// 11.2.2, 11.3.2.3, 11.4.2, 11.5.2.3, 11.6.2): it keeps the
    /// province whoever commands the minor later, as a kept corps does
    /// (3.41). `None`: the garrison is its own nation's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_by: Option<PowerId>,
}

impl Garrison {
    /// A garrison division of `nation`, its own nation's (no `held_by`).
    pub fn of(nation: Nation) -> Garrison {
        Garrison { nation, held_by: None }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProvinceState {
    /// Who controls it now (4.21); `None` for an uncontrolled minor province.
    pub controller: Option<Nation>,
    /// A garrison division (of occupation or conquest), if any.
    pub garrison: Option<Garrison>,
    /// 2.25: a rebellion's ghost division holds the province.
    #[serde(default)]
    pub rebellion: bool,
}

/// One division in a corps box (2.22, 2.23).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Division {
    pub arm: Arm,
    /// The nation of the division (a major corps may hold its own minor
    /// divisions, 2.22).
    pub nation: Nation,
}

/// A corps counter and its mat boxes (2.22, 2.51).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Corps {
    pub nation: Nation,
    pub number: u32,
    /// Province it stands in; `None` while off the map (not yet arrived,
    /// 3.46, or removed).
    pub location: Option<String>,
    /// A player's state file writes `divisions = "unknown"` for another
    /// power's corps (2.5, `State::view_text_for`): read as none known.
    #[serde(default, deserialize_with = "divisions_or_unknown")]
    pub divisions: Vec<Division>,
    /// Reinforcement date (3.3); it may not be used before.
    pub arrives: Option<Turn>,
    /// 3.41: a minor power's corps left in the army of the power that
    /// controlled the minor before another conquered it; that power keeps
    /// it until it is destroyed or its divisions desert. `None`: the
    /// corps follows its nation's commanding power.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_by: Option<PowerId>,
}

impl Corps {
    pub fn key(&self) -> UnitKey {
        UnitKey::corps(self.nation.clone(), self.number)
    }
    /// 2.22, 2.5: three boxes, plus one cavalry division in French corps 1–4.
    pub fn capacity(&self) -> usize {
        if self.nation == Nation::Major(PowerId::France) && self.number <= 4 {
            4
        } else {
            3
        }
    }
}

/// Where a squadron is: in a port or at sea.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "in", content = "id", rename_all = "lowercase")]
pub enum Location {
    Port(String),
    Sea(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Squadron {
    pub nation: Nation,
    pub number: u32,
    pub location: Location,
    /// Blockading the port of this province (5.4).
    #[serde(default)]
    pub blockading: Option<String>,
    /// EiA naval option (12.2.6.1.3.1): ships of the line still fit for
    /// combat; `None` means the table's `ships_per_squadron`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ships: Option<u32>,
    /// 11.7.1: a minor's squadron commanded by another power than its
    /// nation's controller (the Naples fleet under the controller of
    /// Sicily while the two districts are split). `None`: the squadron
    /// follows its nation's commanding power.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_by: Option<PowerId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Commander {
    pub name: String,
    pub nation: PowerId,
    pub rating: u8,
    /// Province he stands in (with a stack), or `None` before arrival.
    pub location: Option<String>,
    pub arrives: Option<Turn>,
    #[serde(default)]
    pub primary: bool,
}

/// How a player reads a nation: `French`, `Neapolitan` (the minor's
/// adjective in the scenario, else its id).
pub fn nation_adjective<'s>(scenario: &'s Scenario, n: &'s Nation) -> &'s str {
    match n {
        Nation::Major(p) => p.adjective(),
        Nation::Minor(m) => scenario.minors.get(m).map_or(m.as_str(), |s| s.adjective.as_str()),
    }
}

/// A nation's name as players read it ("Denmark", "France"), for report
/// text; the id stays in keys, dice purposes and files.
pub fn nation_name<'s>(scenario: &'s Scenario, n: &'s Nation) -> &'s str {
    match n {
        Nation::Major(p) => p.name(),
        Nation::Minor(m) => scenario.minors.get(m).map_or(m.as_str(), |s| s.name.as_str()),
    }
}

/// A unit's identity: `corps` or `squadron`, nation and number.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct UnitKey {
    pub kind: UnitKind,
    pub nation: Nation,
    pub number: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitKind {
    Corps,
    Squadron,
}

impl UnitKey {
    /// The name a player reads: `French corps 3`, `Neapolitan squadron 1`;
    /// a kingdom's own counter (11.2.2.1, 11.2.2.2, 11.3.2.1, 11.5.2.1)
    /// by the seed's name from its table row, with the handle orders use:
    /// `Hesse corps (Rhenish corps 2)`. The key's own text (`france corps
    /// 3`, its `Display`) is an id: dice purposes and stored files use it,
    /// so it never changes.
    pub fn name(&self, scenario: &Scenario) -> String {
        let handle = self.handle(scenario);
        match self.seed_name(scenario) {
            Some(seed) => format!("{seed} ({handle})"),
            None => handle,
        }
    }

    /// The seed's name of a kingdom's own counter (`Hesse corps`), from
    /// its `tables/political.toml` row; `None` for every other unit.
    pub fn seed_name<'s>(&self, scenario: &'s Scenario) -> Option<&'s str> {
        use crate::scenario::tables_political::CounterKind;
        let kind = match self.kind {
            UnitKind::Corps => CounterKind::Corps,
            UnitKind::Squadron => CounterKind::Squadron,
        };
        let Nation::Minor(m) = &self.nation else { return None };
        scenario
            .tables
            .political
            .counter(kind, m, self.number)
            .map(|row| row.name.as_str())
    }

    /// The name orders write and the order checker reads back: `French
    /// corps 3`, `Rhenish corps 2`.
    pub fn handle(&self, scenario: &Scenario) -> String {
        let kind = match self.kind {
            UnitKind::Corps => "corps",
            UnitKind::Squadron => "squadron",
        };
        format!("{} {kind} {}", nation_adjective(scenario, &self.nation), self.number)
    }
    pub fn corps(nation: Nation, number: u32) -> UnitKey {
        UnitKey {
            kind: UnitKind::Corps,
            nation,
            number,
        }
    }
    pub fn squadron(nation: Nation, number: u32) -> UnitKey {
        UnitKey {
            kind: UnitKind::Squadron,
            nation,
            number,
        }
    }
}

impl fmt::Display for UnitKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            UnitKind::Corps => "corps",
            UnitKind::Squadron => "squadron",
        };
        write!(f, "{} {kind} {}", self.nation, self.number)
    }
}

/// An enforced peace between two powers until a turn (2.7).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnforcedPeace {
    pub powers: [PowerId; 2],
    pub until: Turn,
}

/// 2.7: the Alliance Display and the Enforced Peace Record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relations {
    /// Pairs at war, each sorted, the list sorted.
    #[serde(default)]
    pub wars: Vec<[PowerId; 2]>,
    /// Pairs allied, each sorted, the list sorted.
    #[serde(default)]
    pub alliances: Vec<[PowerId; 2]>,
    #[serde(default)]
    pub enforced_peace: Vec<EnforcedPeace>,
}

/// 3.5: each major power's mat: Gold, 100 VP, its force pool; `players`
/// are Player Countries, the rest inactive NPCs (3.3).
fn initial_powers(scenario: &Scenario, players: &BTreeSet<PowerId>) -> BTreeMap<PowerId, PowerState> {
    let mut powers = BTreeMap::new();
    for (id, spec) in &scenario.powers {
        powers.insert(
            *id,
            PowerState {
                control: if players.contains(id) {
                    Control::Player
                } else {
                    Control::Inactive
                },
                gold: spec.gold,
                vp: 100, // 3.5: 100 minus the bid (no bid: 0)
                debt: 0,
                bid: 0,
                capital_lost_turns: 0,
                pool: spec.pool.into(),
                embargo_years: 0,
                in_embargo: false,
                surrendered: None,
            },
        );
    }
    powers
}

/// Every province controlled by its owner (a minor power's by the minor).
fn initial_provinces(scenario: &Scenario) -> BTreeMap<String, ProvinceState> {
    let mut provinces = BTreeMap::new();
    for p in &scenario.map.provinces {
        let controller = match &p.owner {
            Owner::Major(m) => Some(Nation::Major(*m)),
            Owner::Minor(m) => scenario.minors.get(m).map(|_| Nation::Minor(m.clone())),
            Owner::None => None,
        };
        provinces.insert(
            p.id.clone(),
            ProvinceState {
                controller,
                garrison: None,
                rebellion: false,
            },
        );
    }
    provinces
}

/// `nation`'s corps as set up: on the map, or off it until they arrive.
fn set_up_corps<'a>(nation: &'a Nation, specs: &'a [CorpsSpec]) -> impl Iterator<Item = Corps> + 'a {
    specs.iter().map(move |c| Corps {
        nation: nation.clone(),
        number: c.number,
        location: if c.arrives.is_some() { None } else { c.at.clone() },
        divisions: c
            .divisions
            .iter()
            .map(|a| Division {
                arm: *a,
                nation: nation.clone(),
            })
            .collect(),
        arrives: c.arrives,
        held_by: None,
    })
}

/// `nation`'s squadrons as set up, each in its port.
fn set_up_squadrons<'a>(nation: &'a Nation, specs: &'a [SquadronSpec]) -> impl Iterator<Item = Squadron> + 'a {
    specs.iter().map(move |s| Squadron {
        nation: nation.clone(),
        number: s.number,
        location: Location::Port(s.at.clone()),
        blockading: None,
        ships: None,
        held_by: None,
    })
}

fn pair(a: PowerId, b: PowerId) -> [PowerId; 2] {
    if a <= b { [a, b] } else { [b, a] }
}

impl Relations {
    pub fn at_war(&self, a: PowerId, b: PowerId) -> bool {
        self.wars.contains(&pair(a, b))
    }
    pub fn allied(&self, a: PowerId, b: PowerId) -> bool {
        self.alliances.contains(&pair(a, b))
    }
    pub fn set_war(&mut self, a: PowerId, b: PowerId, on: bool) {
        set(&mut self.wars, pair(a, b), on);
    }
    pub fn set_alliance(&mut self, a: PowerId, b: PowerId, on: bool) {
        set(&mut self.alliances, pair(a, b), on);
    }
    pub fn at_war_with_any(&self, a: PowerId) -> bool {
        self.wars.iter().any(|w| w.contains(&a))
    }
    pub fn enemies(&self, a: PowerId) -> Vec<PowerId> {
        self.wars
            .iter()
            .filter(|w| w.contains(&a))
            .map(|w| if w[0] == a { w[1] } else { w[0] })
            .collect()
    }
    pub fn allies(&self, a: PowerId) -> Vec<PowerId> {
        self.alliances
            .iter()
            .filter(|w| w.contains(&a))
            .map(|w| if w[0] == a { w[1] } else { w[0] })
            .collect()
    }
    /// An enforced peace between the two that has not yet expired at `now`.
    pub fn enforced(&self, a: PowerId, b: PowerId, now: Turn) -> Option<&EnforcedPeace> {
        self.enforced_peace
            .iter()
            .find(|e| e.powers == pair(a, b) && now < e.until)
    }
}

fn set(list: &mut Vec<[PowerId; 2]>, p: [PowerId; 2], on: bool) {
    if on {
        if !list.contains(&p) {
            list.push(p);
            list.sort();
        }
    } else {
        list.retain(|x| *x != p);
    }
}

/// The Continental System (4.24).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Embargo {
    /// Declared by France and not cancelled.
    pub active: bool,
}

/// Beyond any count a game reaches (a whole economy earns tens of Gold a
/// turn); a state file holding more was edited by hand.
pub const NUMBER_LIMIT: i64 = 1_000_000_000;

/// The whole state of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub game: String,
    pub scenario: String,
    /// Optional rule modules switched on (`naval`, `political`, …).
    #[serde(default)]
    pub options: BTreeSet<String>,
    /// The open phase.
    pub phase: PhaseId,
    /// 4.6: the order of Player Turns this season, set at Turn Start.
    #[serde(default)]
    pub turn_order: Vec<PowerId>,
    pub powers: BTreeMap<PowerId, PowerState>,
    #[serde(default)]
    pub minors: BTreeMap<String, MinorState>,
    pub provinces: BTreeMap<String, ProvinceState>,
    #[serde(default)]
    pub corps: Vec<Corps>,
    #[serde(default)]
    pub squadrons: Vec<Squadron>,
    #[serde(default)]
    pub commanders: Vec<Commander>,
    #[serde(default)]
    pub relations: Relations,
    #[serde(default)]
    pub embargo: Embargo,
    /// One-time events already used (4.72).
    #[serde(default)]
    pub events_used: BTreeSet<String>,
    /// The winner, once the game is over (7.1), or `draw` after Fall 1815.
    #[serde(default)]
    pub over: Option<String>,
    /// House rule 'draws' (`rules::draw`): the powers whose vote for a
    /// draw stands. Each power's own secret (2.5 as for its pool).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub draw_votes: BTreeSet<PowerId>,
    /// Standing orders per power (rules::standing); they persist until the
    /// player replaces them.
    #[serde(default)]
    pub standing: BTreeMap<PowerId, StandingOrders>,
    /// EiA naval option (12.2.8): hulks in port, by port province and
    /// the nation owning them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hulks: BTreeMap<String, BTreeMap<String, u32>>,
    /// EiA political option (11.8–11.9): dominant status and what the
    /// peace restrictions remember.
    #[serde(default, skip_serializing_if = "Dominance::is_empty")]
    pub dominance: Dominance,
    /// EiA political option (11.1–11.7): the kingdoms in play.
    #[serde(default, skip_serializing_if = "Political::is_empty")]
    pub political: Political,
    /// EiA naval option (12.2.6.1.1.1, 12.2.7): what the naval rules
    /// remember between battles.
    #[serde(default, skip_serializing_if = "NavalState::is_default")]
    pub naval: NavalState,
}

/// EiA political option, 11.8 and 11.9 (`rules::political::dominance`,
/// `rules::political::peace`). Empty in a game without the option.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dominance {
    /// 11.8.1: powers whose dominant status differs from the start
    /// (France and Great Britain dominant, 11.8.4): power -> dominant now.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub status: BTreeMap<PowerId, bool>,
    /// 11.9.1.1: home provinces each power has ceded by peace or
    /// surrender terms.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ceded_home: BTreeMap<PowerId, BTreeSet<String>>,
    /// 11.8.2.6: provinces that became home provinces of a new dominant
    /// power (province -> power).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annexed: BTreeMap<String, PowerId>,
    /// 11.8.2.5: the leader each dominant power improved (power -> name).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub improved: BTreeMap<PowerId, String>,
    /// 11.9.2.2 C.5: powers whose forces have access to another's
    /// provinces by peace terms (grantee -> grantors).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub access: BTreeMap<PowerId, BTreeSet<PowerId>>,
    /// 11.9.2.2 C.5: when each access was granted (grantee -> grantor ->
    /// turn); it ends `access_seasons` seasons later
    /// (`tables/political_dominance.toml`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub access_granted: BTreeMap<PowerId, BTreeMap<PowerId, Turn>>,
}

impl Dominance {
    pub fn is_empty(&self) -> bool {
        self == &Dominance::default()
    }
}

/// 12.2.8.3 (EiA option `naval`): hulks of `power` refitted in `port`,
/// ready as ships in the Mutual Build Phase of `ready`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Refit {
    pub power: PowerId,
    pub port: String,
    pub ships: u32,
    pub ready: Turn,
}

/// EiA naval option: melee unlocked, and where Nelson is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NavalState {
    /// 12.2.6.1.1.1: Nelson has used melee; every fleet may select it.
    #[serde(default)]
    pub melee_free: bool,
    /// 12.2.7: the British squadron Nelson commands, once he has left the
    /// one `tables/naval_option.toml` gives him.
    #[serde(default)]
    pub nelson_squadron: Option<u32>,
    /// 12.2.7: Nelson has been killed.
    #[serde(default)]
    pub nelson_dead: bool,
    /// 12.2.7: Nelson is wounded and away until this turn.
    #[serde(default)]
    pub nelson_back: Option<Turn>,
    /// 12.2.8.3: hulks being refitted, ships again at `ready`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refits: Vec<Refit>,
    /// 12.2.7.2 (second numbering): a French or Spanish fleet at war with
    /// Britain ended a Naval Phase in the West Indies; Britain's colonial
    /// trade is cut at the next economic step.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub colonial_raid: bool,
}

impl NavalState {
    pub fn is_default(&self) -> bool {
        self == &NavalState::default()
    }
}

/// A power's standing orders (rules::standing): the answers to the
/// questions a battle, interception or retreat asks when the power is not
/// the one moving. A field left empty means "use the documented default".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StandingOrders {
    /// 5.4: intercept enemy squadrons (default: yes).
    #[serde(default)]
    pub intercept: Option<bool>,
    /// 5.6: combat option by situation (`attacking`, `defending`, `any`).
    #[serde(default)]
    pub combat: BTreeMap<String, String>,
    /// 5.6: withdraw before battle when outnumbered by more than this
    /// ratio (default: always stand).
    #[serde(default)]
    pub withdraw_ratio: Option<u32>,
    /// Preferred retreat provinces, best first (default: see rules::standing).
    #[serde(default)]
    pub retreat: Vec<String>,
    /// 12.2.6.1.1 (EiA naval option): naval tactical chit by situation
    /// (`attacking`, `defending`, `any`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub naval_tactic: BTreeMap<String, crate::scenario::tables_naval::Chit>,
    /// 12.2.6.1.4.2: what Nelson takes off his closing roll (0, 1 or 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nelson_closing: Option<u8>,
    /// The naval option's other choices (12.2.6.1.7–.9.1, 12.2.7.3,
    /// 12.2.9.3).
    #[serde(default, skip_serializing_if = "naval_standing::NavalStanding::is_default")]
    pub naval: naval_standing::NavalStanding,
}

/// A corps' `divisions`: a list, or `"unknown"` (a composition the
/// viewer may not see, 2.5), read as an empty list.
fn divisions_or_unknown<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Division>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Vec<Division>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of divisions, or \"unknown\"")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v == UNKNOWN {
                Ok(Vec::new())
            } else {
                Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
            }
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            Vec::<Division>::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
        }
    }
    d.deserialize_any(V)
}

/// A force pool, or `"unknown"` (another power's, 2.5) read as empty.
fn pool_or_unknown<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PoolState, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = PoolState;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a force pool, or \"unknown\"")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v == UNKNOWN {
                Ok(PoolState::default())
            } else {
                Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
            }
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            PoolState::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_any(V)
}

/// What a player's state file writes for what it may not see (2.5).
pub const UNKNOWN: &str = "unknown";

/// `state.toml` on disk: the schema version beside the state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StateFile {
    pub format: u32,
    #[serde(flatten)]
    pub state: State,
}

/// A problem found in a state file: the key and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateError {
    pub key: String,
    pub message: String,
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl State {
    /// 3.0–3.6: the set-up from the player mats. `players` are the powers
    /// with a player (the rest are NPCs, 3.3).
    pub fn initial(scenario: &Scenario, game: &str, players: &BTreeSet<PowerId>, options: BTreeSet<String>) -> State {
        let mut provinces = initial_provinces(scenario);
        let mut corps = Vec::new();
        let mut squadrons = Vec::new();
        let mut commanders = Vec::new();
        for (id, spec) in &scenario.powers {
            let nation = Nation::Major(*id);
            for g in &spec.garrisons {
                if let Some(ps) = provinces.get_mut(g) {
                    ps.garrison = Some(Garrison::of(nation.clone()));
                    ps.controller = Some(nation.clone());
                }
            }
            corps.extend(set_up_corps(&nation, &spec.corps));
            squadrons.extend(set_up_squadrons(&nation, &spec.squadrons));
            for c in &spec.commanders {
                commanders.push(Commander {
                    name: c.name.clone(),
                    nation: *id,
                    rating: c.rating,
                    location: if c.arrives.is_some() {
                        None
                    } else {
                        c.at.clone().or_else(|| Some(spec.capital.clone()))
                    },
                    arrives: c.arrives,
                    primary: c.primary,
                });
            }
        }
        let mut minors = BTreeMap::new();
        for (id, m) in &scenario.minors {
            let nation = Nation::Minor(id.clone());
            minors.insert(
                id.clone(),
                MinorState {
                    controller: m.controller,
                    pool: m.pool.into(),
                    formed: false,
                },
            );
            for g in &m.garrisons {
                if let Some(ps) = provinces.get_mut(g) {
                    ps.garrison = Some(Garrison::of(nation.clone()));
                }
            }
            corps.extend(set_up_corps(&nation, &m.corps));
            squadrons.extend(set_up_squadrons(&nation, &m.squadrons));
        }
        State {
            game: game.to_string(),
            scenario: scenario.id.clone(),
            options,
            phase: PhaseId {
                turn: scenario.start,
                step: Step::TurnStart,
            },
            turn_order: Vec::new(),
            powers: initial_powers(scenario, players),
            minors,
            provinces,
            corps,
            squadrons,
            commanders,
            relations: Relations::default(),
            embargo: Embargo::default(),
            events_used: BTreeSet::new(),
            draw_votes: BTreeSet::new(),
            over: None,
            standing: BTreeMap::new(),
            hulks: BTreeMap::new(),
            dominance: Dominance::default(),
            political: Political::default(),
            naval: NavalState::default(),
        }
    }

    pub fn power(&self, p: PowerId) -> &PowerState {
        &self.powers[&p]
    }

    pub fn power_mut(&mut self, p: PowerId) -> &mut PowerState {
        self.powers.get_mut(&p).expect("every power is in the state")
    }

    pub fn turn(&self) -> Turn {
        self.phase.turn
    }

    pub fn corps(&self, nation: &Nation, number: u32) -> Option<&Corps> {
        self.corps.iter().find(|c| &c.nation == nation && c.number == number)
    }

    pub fn corps_mut(&mut self, nation: &Nation, number: u32) -> Option<&mut Corps> {
        self.corps
            .iter_mut()
            .find(|c| &c.nation == nation && c.number == number)
    }

    pub fn squadron(&self, nation: &Nation, number: u32) -> Option<&Squadron> {
        self.squadrons
            .iter()
            .find(|c| &c.nation == nation && c.number == number)
    }

    pub fn squadron_mut(&mut self, nation: &Nation, number: u32) -> Option<&mut Squadron> {
        self.squadrons
            .iter_mut()
            .find(|c| &c.nation == nation && c.number == number)
    }

    /// A new squadron counter of `nation` at `location`, numbered one past
    /// the nation's highest (2.51: a counter from the force pool; the
    /// caller takes it from the pool). Returns its number.
    pub fn new_squadron(&mut self, nation: &Nation, location: Location, ships: Option<u32>) -> u32 {
        let number = self
            .squadrons
            .iter()
            .filter(|s| &s.nation == nation)
            .map(|s| s.number)
            .max()
            .unwrap_or(0)
            + 1;
        self.squadrons.push(Squadron {
            nation: nation.clone(),
            number,
            location,
            blockading: None,
            ships,
            held_by: None,
        });
        number
    }

    /// EiA naval option (12.2.8): the hulks `power` holds at `location`.
    pub fn hulks_at(&self, location: &str, power: PowerId) -> u32 {
        self.hulks
            .get(location)
            .and_then(|m| m.get(power.id()))
            .copied()
            .unwrap_or(0)
    }

    /// EiA naval option (12.2.8): `n` more hulks of `power` at `location`
    /// (none recorded for zero, so the state file stays unchanged).
    pub fn add_hulks(&mut self, location: &str, power: PowerId, n: u32) {
        if n > 0 {
            *self
                .hulks
                .entry(location.to_string())
                .or_default()
                .entry(power.id().to_string())
                .or_insert(0) += n;
        }
    }

    /// Corps standing in a province.
    pub fn corps_in<'a>(&'a self, province: &'a str) -> impl Iterator<Item = &'a Corps> + 'a {
        self.corps
            .iter()
            .filter(move |c| c.location.as_deref() == Some(province))
    }

    /// The major power that commands a nation's units now: a major power
    /// itself; a minor's controller.
    pub fn commanding_power(&self, nation: &Nation) -> Option<PowerId> {
        match nation {
            Nation::Major(p) => Some(*p),
            Nation::Minor(m) => self.minors.get(m).and_then(|s| s.controller),
        }
    }

    /// The major power that commands this corps now: the power keeping a
    /// minor corps after its minor was conquered by another (3.41), else
    /// its nation's commanding power.
    pub fn corps_power(&self, c: &Corps) -> Option<PowerId> {
        // an emptied counter off the map is its nation's again
        c.held_by
            .filter(|_| c.location.is_some())
            .or_else(|| self.commanding_power(&c.nation))
    }

    /// The major power a garrison holds its province for (4.21): its
    /// holder (a kingdom's garrison, 11.1.2), else its nation if a major
    /// power; a minor's own garrison of conquest (2.5, Finland) holds it
    /// for nobody.
    pub fn garrison_power(&self, g: &Garrison) -> Option<PowerId> {
        g.held_by.or(match g.nation {
            Nation::Major(p) => Some(p),
            Nation::Minor(_) => None,
        })
    }

    /// The major power that commands this squadron now: a kingdom's own
    /// fleet only its kingdom's controller, nobody while the kingdom does
    /// not exist (11.2.2.2); else its holder (11.7.1), else its nation's
    /// commanding power (3.43).
    pub fn squadron_power(&self, s: &Squadron) -> Option<PowerId> {
        if let Some(k) = self.political.fleet_of(&s.nation, s.number) {
            return self.political.kingdom(k).map(|k| k.controller);
        }
        s.held_by.or_else(|| self.commanding_power(&s.nation))
    }

    /// The major power that commands a unit now (a corps by
    /// [`State::corps_power`], a squadron by [`State::squadron_power`]).
    pub fn unit_power(&self, key: &UnitKey) -> Option<PowerId> {
        match key.kind {
            UnitKind::Corps => self
                .corps(&key.nation, key.number)
                .map_or_else(|| self.commanding_power(&key.nation), |c| self.corps_power(c)),
            UnitKind::Squadron => self
                .squadron(&key.nation, key.number)
                .map_or_else(|| self.commanding_power(&key.nation), |s| self.squadron_power(s)),
        }
    }

    /// Which player (PC) gives orders for `power`'s units now (3.31): the
    /// power itself if it is a PC, its ally or controller if an NPC.
    pub fn ordered_by(&self, power: PowerId) -> Option<PowerId> {
        match &self.power(power).control {
            Control::Player => Some(power),
            Control::Allied { with } => Some(*with),
            Control::Controlled { by } => Some(*by),
            Control::Inactive => None,
        }
    }

    /// 1.2: the open phase is within the scenario's years (a hand edit
    /// is caught on load, not by `resolve`).
    fn check_phase(&self, scenario: &Scenario, bad: &mut impl FnMut(String, String)) {
        if self.over.is_none() {
            let ph = self.phase;
            if ph.turn.year < scenario.start.year || ph.turn.year > scenario.end.year {
                bad(
                    "phase".into(),
                    format!(
                        "{ph} is outside the scenario's years ({} to {})",
                        scenario.start.year, scenario.end.year
                    ),
                );
            }
        }
    }

    /// 2.7: a pair of the Alliance Display or the Enforced Peace Record
    /// is two powers, kept sorted (`pair`): a pair written the other way
    /// round, or of one power, would never be found, and the war or
    /// alliance it records would silently not hold.
    fn check_relations(&self, bad: &mut impl FnMut(String, String)) {
        let r = &self.relations;
        let pairs = (r.wars.iter().map(|w| ("wars", w)))
            .chain(r.alliances.iter().map(|a| ("alliances", a)))
            .chain(r.enforced_peace.iter().map(|e| ("enforced_peace", &e.powers)));
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for (list, &[a, b]) in pairs {
            let i = counts.entry(list).or_default();
            let key = format!("relations.{list}[{i}]");
            *i += 1;
            if a == b {
                bad(key, format!("[{a}, {b}] names one power twice"));
            } else if a > b {
                bad(key, format!("[{a}, {b}] is written the other way round: [{b}, {a}]"));
            }
        }
    }

    /// Check every id in the state against the scenario, naming the key.
    pub fn check_against(&self, scenario: &Scenario) -> Result<(), Vec<StateError>> {
        let mut errs = Vec::new();
        let mut bad = |key: String, message: String| errs.push(StateError { key, message });
        if self.scenario != scenario.id {
            bad(
                "scenario".into(),
                format!("state is for scenario '{}', not '{}'", self.scenario, scenario.id),
            );
        }
        for p in PowerId::ALL {
            if !self.powers.contains_key(&p) {
                bad(format!("powers.{p}"), "missing".into());
            }
        }
        self.check_phase(scenario, &mut bad);
        for id in self.provinces.keys() {
            if scenario.map.province(id).is_none() {
                bad(format!("provinces.{id}"), "not a province of the scenario".into());
            }
        }
        for p in &scenario.map.provinces {
            if !self.provinces.contains_key(&p.id) {
                bad(format!("provinces.{}", p.id), "missing".into());
            }
        }
        // Gold and the deficit never go below zero (4.221: what cannot be
        // paid is carried as debt; rules::audit checks every resolution).
        // No count reaches NUMBER_LIMIT in a game; a file past it was
        // edited by hand, and arithmetic on it could overflow.
        for (p, ps) in &self.powers {
            for (name, v, min) in [("gold", ps.gold, 0), ("debt", ps.debt, 0), ("vp", ps.vp, -NUMBER_LIMIT)] {
                if v < min || v > NUMBER_LIMIT {
                    bad(
                        format!("powers.{p}.{name}"),
                        format!("{v} is impossible (from {min} to {NUMBER_LIMIT})"),
                    );
                }
            }
            let pool = [
                ("infantry", ps.pool.infantry),
                ("cavalry", ps.pool.cavalry),
                ("artillery", ps.pool.artillery),
                ("squadrons", ps.pool.squadrons),
            ];
            for (name, v) in pool {
                if i64::from(v) > NUMBER_LIMIT {
                    bad(
                        format!("powers.{p}.pool.{name}"),
                        format!("{v} is impossible (at most {NUMBER_LIMIT})"),
                    );
                }
            }
        }
        self.check_relations(&mut bad);
        let mut seen = BTreeSet::new();
        for (i, c) in self.corps.iter().enumerate() {
            if !seen.insert(c.key()) {
                bad(format!("corps[{i}].number"), format!("{} appears twice", c.key()));
            }
        }
        for (i, s) in self.squadrons.iter().enumerate() {
            let key = UnitKey::squadron(s.nation.clone(), s.number);
            if !seen.insert(key.clone()) {
                bad(format!("squadrons[{i}].number"), format!("{key} appears twice"));
            }
        }
        let known_nation = |n: &Nation| match n {
            Nation::Major(_) => true,
            Nation::Minor(m) => scenario.minors.contains_key(m),
        };
        for (i, c) in self.corps.iter().enumerate() {
            if !known_nation(&c.nation) {
                bad(format!("corps[{i}].nation"), format!("unknown nation '{}'", c.nation));
            }
            if let Some(l) = &c.location
                && scenario.map.province(l).is_none()
            {
                bad(format!("corps[{i}].location"), format!("'{l}' is not a province"));
            }
            if c.divisions.len() > c.capacity() {
                bad(
                    format!("corps[{i}].divisions"),
                    format!("{} divisions, at most {} (2.22, 2.5)", c.divisions.len(), c.capacity()),
                );
            }
        }
        for (i, s) in self.squadrons.iter().enumerate() {
            if !known_nation(&s.nation) {
                bad(
                    format!("squadrons[{i}].nation"),
                    format!("unknown nation '{}'", s.nation),
                );
            }
            let ok = match &s.location {
                Location::Port(p) => scenario.map.province(p).is_some_and(|x| x.port),
                Location::Sea(z) => scenario.map.sea(z).is_some(),
            };
            if !ok {
                bad(
                    format!("squadrons[{i}].location"),
                    format!("{:?} is not a port or sea zone", s.location),
                );
            }
        }
        for (i, c) in self.commanders.iter().enumerate() {
            if let Some(l) = &c.location
                && scenario.map.province(l).is_none()
            {
                bad(format!("commanders[{i}].location"), format!("'{l}' is not a province"));
            }
        }
        for (id, ps) in &self.provinces {
            if let Some(n) = &ps.controller
                && !known_nation(n)
            {
                bad(format!("provinces.{id}.controller"), format!("unknown nation '{n}'"));
            }
        }
        if errs.is_empty() { Ok(()) } else { Err(errs) }
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(&StateFile {
            format: FORMAT,
            state: self.clone(),
        })
        .expect("state serialises")
    }

    /// Parse a state file; a wrong `format` or a malformed key is named.
    pub fn from_toml(text: &str) -> Result<State, StateError> {
        // The usual file (the right format, a valid state) is parsed once;
        // anything else takes the slow path below, whose errors name the
        // key or line.
        if let Some(state) = Self::from_toml_once(text) {
            return Ok(state);
        }
        Self::from_toml_checked(text)
    }

    /// One parse of the document: `format` read and taken out of the
    /// parsed table, the rest read as the state. `None` on any problem.
    fn from_toml_once(text: &str) -> Option<State> {
        let mut doc = toml::de::DeTable::parse(text).ok()?;
        let format = doc.get_mut().remove("format")?;
        let n = format.get_ref().as_integer()?;
        if u32::from_str_radix(n.as_str(), n.radix()).ok()? != FORMAT {
            return None;
        }
        State::deserialize(toml::de::Deserializer::from(doc)).ok()
    }

    /// As [`State::from_toml`], three parses: the format, then the
    /// document with `format` blanked in place so that every error keeps
    /// its line.
    fn from_toml_checked(text: &str) -> Result<State, StateError> {
        #[derive(Deserialize)]
        struct Head {
            format: Option<u32>,
        }
        let head: Head = toml::from_str(text).map_err(|e| StateError {
            key: line_key(text, &e),
            message: e.message().trim().to_string(),
        })?;
        match head.format {
            Some(FORMAT) => {}
            Some(f) => {
                return Err(StateError {
                    key: "format".into(),
                    message: format!("state format {f} is not supported (this build reads format {FORMAT})"),
                });
            }
            None => {
                return Err(StateError {
                    key: "format".into(),
                    message: "missing".into(),
                });
            }
        }
        // The state itself, not StateFile: serde's flatten would lose the
        // place of a bad value (every error would point at line 1) and
        // cannot refuse unknown keys. `format` (checked above) is blanked
        // in place, so every offset, and so every line, stays where it is.
        let blanked = blank_key(text, "format");
        toml::from_str::<State>(&blanked).map_err(|e| StateError {
            key: line_key(text, &e),
            message: e.message().trim().to_string(),
        })
    }
}

/// `text` with the top-level `key = value` replaced by spaces.
fn blank_key(text: &str, key: &str) -> String {
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return text.to_string();
    };
    let Some((k, v)) = doc.get_ref().iter().find(|(k, _)| k.get_ref().as_ref() == key) else {
        return text.to_string();
    };
    let range = k.span().start..v.span().end;
    let mut out = text.to_string();
    if out.is_char_boundary(range.start) && out.is_char_boundary(range.end) {
        out.replace_range(range.clone(), &" ".repeat(range.len()));
    }
    out
}

fn line_key(text: &str, e: &toml::de::Error) -> String {
    match e.span() {
        Some(s) => format!("line {}", text[..s.start.min(text.len())].matches('\n').count() + 1),
        None => "state".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_usual_state_file_is_parsed_once_and_anything_else_takes_the_checked_path() {
        let scen = Scenario::embedded("1805").unwrap();
        let players = BTreeSet::from([PowerId::France, PowerId::Britain]);
        let state = State::initial(&scen, "once", &players, BTreeSet::from(["naval".to_string()]));
        let text = state.to_toml();
        assert!(text.starts_with("format = 1\n"), "{}", &text[..40]);
        assert_eq!(State::from_toml_once(&text), Some(state.clone()));
        assert_eq!(
            State::from_toml_once(&text.replacen("format = 1", "format = 0x1", 1)),
            Some(state)
        );
        for other in [
            text.replacen("format = 1", "format = 2", 1),
            text.replacen("format = 1\n", "", 1),
            text.replacen("format = 1", "format = \"1\"", 1),
            format!("unknown = 3\n{text}"),
            text.replacen("format = 1", "format = 1\ngame = 7", 1),
        ] {
            assert_eq!(State::from_toml_once(&other), None, "{}", &other[..60]);
            assert!(State::from_toml(&other).is_err(), "{}", &other[..60]);
        }
    }

    /// The errors `check_against` gives for the relations, as `key: message`.
    fn relation_errors(state: &State, scen: &Scenario) -> Vec<String> {
        let errs = state.check_against(scen).err().unwrap_or_default();
        errs.iter()
            .filter(|e| e.key.starts_with("relations."))
            .map(|e| format!("{}: {}", e.key, e.message))
            .collect()
    }

    #[test]
    fn a_relation_written_the_other_way_round_or_of_one_power_is_named_by_its_key() {
        let scen = Scenario::embedded("1805").unwrap();
        let players = PowerId::ALL.into_iter().collect();
        let mut state = State::initial(&scen, "pairs", &players, BTreeSet::new());
        state.relations = Relations::default();
        state.relations.set_war(PowerId::Austria, PowerId::France, true);
        state.relations.set_alliance(PowerId::Russia, PowerId::Austria, true);
        state.relations.set_alliance(PowerId::Prussia, PowerId::Spain, true);
        state.relations.enforced_peace = vec![EnforcedPeace {
            powers: pair(PowerId::Britain, PowerId::Spain),
            until: state.turn(),
        }];
        assert_eq!(relation_errors(&state, &scen), Vec::<String>::new());
        let [a, b] = state.relations.alliances[1];
        state.relations.alliances[1] = [b, a];
        state.relations.wars[0] = [PowerId::France, PowerId::France];
        let [c, d] = state.relations.enforced_peace[0].powers;
        state.relations.enforced_peace[0].powers = [d, c];
        assert_eq!(
            relation_errors(&state, &scen),
            [
                "relations.wars[0]: [france, france] names one power twice".to_string(),
                format!("relations.alliances[1]: [{b}, {a}] is written the other way round: [{a}, {b}]"),
                format!("relations.enforced_peace[0]: [{d}, {c}] is written the other way round: [{c}, {d}]"),
            ]
        );
    }
}
