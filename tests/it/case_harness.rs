//! The military side of the rule-case harness (`tests/it/rules_cases.rs`):
//! the small fixture map (`map = "war"` with a `map_reason`,
//! `tests/fixtures/war/`, with the shipped 1805 tables), the `[setup]` paths, one step of a Player Turn
//! run directly (`phase = "land" | "naval" | "validate" | "surrender" |
//! "due"`), and the expectations keyed by unit or province.
//!
//! Set paths (`[setup] set = [...]`): `corps.<nation>.<n>.location`
//! (creates the corps if new), `corps.<nation>.<n>.divisions`,
//! `commander.<name>.location`, `commander.<name>.rating`,
//! `province.<id>.controller`, `province.<id>.garrison`,
//! `province.<id>.rebellion`, `squadron.<nation>.<n>.location`
//! (`sea:<id>`/`port:<id>`), `squadron.<nation>.<n>.blockading`,
//! `squadron.<nation>.<n>.ships`, `squadron.<nation>.<n>.held_by`, `power.<p>.gold`, `hulks.<port>.<owner>`,
//! `power.<p>.control` (`player`, `inactive`, `controlled:<by>`,
//! `allied:<with>`), `power.<p>.capital_lost_turns`, `standing.<p>` (a
//! table like `StandingOrders`), `minor.<m>.controller`, `access.<p>`
//! (the powers that granted `p` access by peace condition C.5, 11.9.2.2).
#![allow(clippy::disallowed_methods)] // test harness reads fixture files
#![allow(dead_code)] // `tests/it/war.rs` uses the fixture only

use empereur::ids::{Nation, PowerId, Turn};
use empereur::orders::ast::{Order, OrderLine, Terms};
use empereur::rules::war;
use empereur::rules::{Kind, Outcome, Visibility};
use empereur::scenario::{Arm, Scenario, ScenarioFiles};
use empereur::state::{Control, Corps, Division, EnforcedPeace, Garrison, Location, StandingOrders, State};
use empereur::testing::ScriptedDice;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The test map with the shipped 1805 tables.
pub fn fixture() -> Scenario {
    let mut files: ScenarioFiles = empereur::scenario::embedded("1805")
        .expect("1805 is embedded")
        .into_iter()
        .filter(|(k, _)| k.starts_with("tables/"))
        .collect();
    let dir = root().join("tests/fixtures/war");
    for f in [
        "scenario.toml",
        "provinces.toml",
        "seas.toml",
        "arrows.toml",
        "powers.toml",
        "minors.toml",
    ] {
        files.insert(
            f.to_string(),
            std::fs::read_to_string(dir.join(f)).expect("fixture file"),
        );
    }
    match Scenario::load(&files) {
        Ok(s) => s,
        Err(e) => panic!("fixture does not load: {e:?}"),
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Optional rule modules switched on (`naval`, `political`).
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub wars: Vec<[PowerId; 2]>,
    #[serde(default)]
    pub alliances: Vec<[PowerId; 2]>,
    #[serde(default)]
    pub enforced_peace: Vec<PeaceCase>,
    #[serde(default)]
    pub set: Vec<SetItem>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeaceCase {
    pub powers: [PowerId; 2],
    pub until: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetItem {
    pub path: String,
    pub value: toml::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurrenderCase {
    pub loser: PowerId,
    pub victor: PowerId,
    #[serde(default)]
    pub terms: Terms,
}

/// What a case expects after it ran (every key optional).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// State values by dotted path of the state file.
    #[serde(default)]
    pub state: Vec<SetItem>,
    #[serde(default)]
    pub outcome: Vec<ExpectOutcome>,
    /// Where corps stand: a list of `{ nation, number, at, ... }`, or a
    /// table `"nation.number" = "province"`.
    #[serde(default)]
    pub corps: CorpsExpect,
    /// With `seating`: "legal", or a substring of the refusal.
    pub seating: Option<String>,
    pub rejected: Option<String>,
    pub reason: Option<String>,
    pub accepted: Option<bool>,
    #[serde(default)]
    pub divisions: BTreeMap<String, usize>,
    #[serde(default)]
    pub controller: BTreeMap<String, String>,
    #[serde(default)]
    pub garrison: BTreeMap<String, String>,
    #[serde(default)]
    pub squadrons: BTreeMap<String, String>,
    #[serde(default)]
    pub commanders: BTreeMap<String, String>,
    #[serde(default)]
    pub minor_controller: BTreeMap<String, String>,
    #[serde(default)]
    pub vp: BTreeMap<PowerId, i64>,
    #[serde(default)]
    pub gold: BTreeMap<PowerId, i64>,
    #[serde(default)]
    pub debt: BTreeMap<PowerId, i64>,
    /// Ships fit for combat in a squadron (EiA option `naval`), by `nation.n`.
    #[serde(default)]
    pub ships: BTreeMap<String, u32>,
    /// Hulks in a port by owner (12.2.8): `{ paris = { france = 2 } }`.
    #[serde(default)]
    pub hulks: BTreeMap<String, BTreeMap<String, u32>>,
    #[serde(default)]
    pub kinds: Vec<String>,
    #[serde(default)]
    pub no_kinds: Vec<String>,
    #[serde(default)]
    pub why: Vec<String>,
    #[serde(default)]
    pub summary: Vec<String>,
    pub wars: Option<Vec<[PowerId; 2]>>,
    pub enforced_peace: Option<Vec<[PowerId; 2]>>,
    /// Powers that see each `battle` / `naval-battle` outcome in full;
    /// its `battle-result` summary must be public.
    pub seen_by: Option<Vec<PowerId>>,
    /// phase = "due": the power `active` must surrender to (or "none").
    pub due: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub enum CorpsExpect {
    List(Vec<ExpectCorps>),
    At(BTreeMap<String, String>),
}

impl Default for CorpsExpect {
    fn default() -> Self {
        CorpsExpect::List(Vec::new())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectCorps {
    pub nation: Nation,
    pub number: u32,
    pub at: String,
    pub divisions: Option<usize>,
    pub commanded_by: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectOutcome {
    /// A misspelt kind fails to parse: the case is malformed.
    pub kind: Kind,
    pub power: Option<PowerId>,
    pub gold: Option<i64>,
    pub vp: Option<i64>,
    pub summary: Option<String>,
    pub why: Option<String>,
    #[serde(default)]
    pub absent: bool,
    /// How many outcomes match (with the other filters).
    pub count: Option<usize>,
    /// The first such outcome comes before every outcome of this kind
    /// (the order of the book's steps).
    pub before: Option<Kind>,
}

/// The steps of a Player Turn a case can run on its own.
pub const STEPS: [&str; 5] = ["land", "naval", "validate", "surrender", "due"];

/// Apply `[setup]`: options, wars, alliances, enforced peaces, set paths.
pub fn apply_setup(state: &mut State, setup: &Setup) -> Result<(), String> {
    state.options.extend(setup.options.iter().cloned());
    for [a, b] in &setup.wars {
        state.relations.set_war(*a, *b, true);
    }
    for [a, b] in &setup.alliances {
        state.relations.set_alliance(*a, *b, true);
    }
    for e in &setup.enforced_peace {
        let mut powers = e.powers;
        powers.sort();
        state.relations.enforced_peace.push(EnforcedPeace {
            powers,
            until: Turn::parse(&e.until).ok_or(format!("until: bad turn {}", e.until))?,
        });
    }
    for item in &setup.set {
        apply_set(state, item).map_err(|e| format!("setup {}: {e}", item.path))?;
    }
    Ok(())
}

/// One step of a case: which step of whose Player Turn, with what orders,
/// and what the case expects of it.
pub struct Step<'a> {
    /// `validate` (only the legality check, `war::check_order`), `land`,
    /// `naval`, `surrender` or `due`.
    pub name: &'a str,
    pub active: PowerId,
    pub orders: &'a [Order],
    pub surrender: Option<&'a SurrenderCase>,
    pub expect: &'a Expect,
}

/// Run one step of `active`'s Player Turn; returns its outcomes, or the
/// failed expectations of a `validate` / `due` step.
pub fn run_step(
    s: &Scenario,
    state: &mut State,
    step: &Step,
    dice: &mut ScriptedDice,
    fails: &mut Vec<String>,
) -> Result<Vec<Outcome>, String> {
    let Step {
        name: step,
        active,
        orders,
        surrender,
        expect: e,
    } = *step;
    let mut out: Vec<Outcome> = Vec::new();
    let orders = lines(orders);
    let before = state.clone();
    match step {
        "validate" => {
            let results: Vec<_> = orders
                .iter()
                .map(|l| war::check_order(s, state, active, &l.order))
                .collect();
            if let Some(rule) = &e.rejected {
                // the rule number alone would pass a refusal for another
                // reason under the same section
                let Some(reason) = &e.reason else {
                    return Err("`rejected` needs `reason` (a substring of the refusal)".into());
                };
                match results.first() {
                    Some(Err(r)) if &r.rule == rule && r.reason.contains(reason.as_str()) => {}
                    other => fails.push(format!(
                        "expected a rejection citing {rule} because of '{reason}', got {other:?}"
                    )),
                }
            }
            if e.accepted == Some(true) {
                for r in &results {
                    if let Err(x) = r {
                        fails.push(format!("expected accepted, got {x:?}"));
                    }
                }
            }
        }
        "land" => {
            war::land_phase(s, state, active, &orders, dice, &mut out).map_err(|e| format!("land phase failed: {e}"))?
        }
        "naval" => war::naval_phase(s, state, active, &orders, dice, &mut out)
            .map_err(|e| format!("naval phase failed: {e}"))?,
        "surrender" => {
            let sc = surrender.ok_or("phase surrender needs [surrender]")?;
            out.extend(war::surrender::surrender(s, state, sc.loser, sc.victor, &sc.terms));
        }
        "due" => {
            let got = war::surrender::due(s, state, active)
                .map(|p| p.id().to_string())
                .unwrap_or_else(|| "none".into());
            if Some(&got) != e.due.as_ref() {
                fails.push(format!("due: expected {:?}, got {got}", e.due));
            }
        }
        p => return Err(format!("unknown step '{p}'")),
    }
    // every Gold and VP change a step makes is explained by its outcomes
    if let Err(a) = empereur::rules::audit(&before, state, &out) {
        fails.push(format!("audit: {a}"));
    }
    Ok(out)
}

/// Where each corps of `want` (key `nation.number`) stands.
pub fn check_corps_at(state: &State, want: &BTreeMap<String, String>, fails: &mut Vec<String>) {
    for (k, want) in want {
        let Ok((n, num)) = unit(k) else {
            fails.push(format!("bad corps key '{k}'"));
            continue;
        };
        let got = state
            .corps(&n, num)
            .map(|c| c.location.clone().unwrap_or_else(|| "none".into()))
            .unwrap_or_else(|| "missing".into());
        if &got != want {
            fails.push(format!("corps {k}: expected {want}, got {got}"));
        }
    }
}

fn sorted_pairs(w: &[[PowerId; 2]]) -> Vec<[PowerId; 2]> {
    let mut want: Vec<[PowerId; 2]> = w
        .iter()
        .map(|p| {
            let mut p = *p;
            p.sort();
            p
        })
        .collect();
    want.sort();
    want
}

/// The expectations keyed by unit or province.
pub fn check(state: &State, out: &[Outcome], e: &Expect, fails: &mut Vec<String>) {
    for (k, want) in &e.divisions {
        let Ok((n, num)) = unit(k) else {
            fails.push(format!("bad corps key '{k}'"));
            continue;
        };
        let got = state.corps(&n, num).map(|c| c.divisions.len()).unwrap_or(0);
        if got != *want {
            fails.push(format!("corps {k}: expected {want} divisions, got {got}"));
        }
    }
    for (p, want) in &e.controller {
        let got = state
            .provinces
            .get(p)
            .and_then(|x| x.controller.as_ref())
            .map(|n| n.to_string())
            .unwrap_or_else(|| "none".into());
        if &got != want {
            fails.push(format!("controller of {p}: expected {want}, got {got}"));
        }
    }
    for (p, want) in &e.garrison {
        let got = state
            .provinces
            .get(p)
            .and_then(|x| x.garrison.as_ref())
            .map(|g| g.nation.to_string())
            .unwrap_or_else(|| "none".into());
        if &got != want {
            fails.push(format!("garrison of {p}: expected {want}, got {got}"));
        }
    }
    for (k, want) in &e.squadrons {
        let Ok((n, num)) = unit(k) else {
            fails.push(format!("bad squadron key '{k}'"));
            continue;
        };
        let got = state
            .squadron(&n, num)
            .map(|s| loc_str(&s.location))
            .unwrap_or_else(|| "none".into());
        if &got != want {
            fails.push(format!("squadron {k}: expected {want}, got {got}"));
        }
    }
    for (name, want) in &e.commanders {
        let got = state
            .commanders
            .iter()
            .find(|c| &c.name == name)
            .map(|c| c.location.clone().unwrap_or_else(|| "none".into()))
            .unwrap_or_else(|| "missing".into());
        if &got != want {
            fails.push(format!("commander {name}: expected {want}, got {got}"));
        }
    }
    for (m, want) in &e.minor_controller {
        let got = state
            .minors
            .get(m)
            .and_then(|x| x.controller)
            .map(|p| p.id().to_string())
            .unwrap_or_else(|| "none".into());
        if &got != want {
            fails.push(format!("minor {m}: expected controller {want}, got {got}"));
        }
    }
    for (p, want) in &e.vp {
        if state.power(*p).vp != *want {
            fails.push(format!("vp of {p}: expected {want}, got {}", state.power(*p).vp));
        }
    }
    for (p, want) in &e.gold {
        if state.power(*p).gold != *want {
            fails.push(format!("gold of {p}: expected {want}, got {}", state.power(*p).gold));
        }
    }
    for (p, want) in &e.debt {
        if state.power(*p).debt != *want {
            fails.push(format!("debt of {p}: expected {want}, got {}", state.power(*p).debt));
        }
    }
    for (k, want) in &e.ships {
        // a squadron without its own count has the table default; the
        // cases name the count they expect, so `None` reads as unknown
        let got = unit(k)
            .ok()
            .and_then(|(n, num)| state.squadron(&n, num))
            .map(|q| q.ships.map_or_else(|| "default".to_string(), |x| x.to_string()));
        if got.as_deref() != Some(want.to_string().as_str()) {
            fails.push(format!("ships of {k}: expected {want}, got {got:?}"));
        }
    }
    for (port, want) in &e.hulks {
        let got = state.hulks.get(port).cloned().unwrap_or_default();
        if &got != want {
            fails.push(format!("hulks in {port}: expected {want:?}, got {got:?}"));
        }
    }
    let kinds: BTreeSet<&str> = out.iter().map(|o| o.kind.as_str()).collect();
    for k in &e.kinds {
        if !kinds.contains(k.as_str()) {
            fails.push(format!("no outcome of kind '{k}' (got {kinds:?})"));
        }
    }
    for k in &e.no_kinds {
        if kinds.contains(k.as_str()) {
            fails.push(format!("an outcome of kind '{k}' was not expected"));
        }
    }
    for w in &e.why {
        if !out.iter().any(|o| o.why.iter().any(|l| l.contains(w.as_str()))) {
            fails.push(format!("no why-line contains '{w}'"));
        }
    }
    for w in &e.summary {
        if !out.iter().any(|o| o.summary.contains(w.as_str())) {
            fails.push(format!("no summary contains '{w}'"));
        }
    }
    if let Some(w) = &e.wars {
        let want = sorted_pairs(w);
        if state.relations.wars != want {
            fails.push(format!("wars: expected {want:?}, got {:?}", state.relations.wars));
        }
    }
    if let Some(w) = &e.enforced_peace {
        let got: Vec<[PowerId; 2]> = state.relations.enforced_peace.iter().map(|e| e.powers).collect();
        let want = sorted_pairs(w);
        if got != want {
            fails.push(format!("enforced peace: expected {want:?}, got {got:?}"));
        }
    }
    if let Some(want) = &e.seen_by {
        // a case about who sees a battle proves nothing without one
        if !out
            .iter()
            .any(|o| o.kind == Kind::Battle || o.kind == Kind::NavalBattle)
        {
            fails.push("seen_by: no battle was fought".into());
        }
        if !out.iter().any(|o| o.kind == Kind::BattleResult) && out.iter().any(|o| o.kind == Kind::Battle) {
            fails.push("seen_by: a battle without its public battle-result".into());
        }
        for o in out {
            match o.kind.as_str() {
                "battle" | "naval-battle" if o.visibility != Visibility::Only(want.clone()) => {
                    fails.push(format!("{} seen by {:?}, expected {want:?}", o.kind, o.visibility))
                }
                "battle-result" if o.visibility != Visibility::All => {
                    fails.push(format!("battle-result seen by {:?}, expected all", o.visibility))
                }
                _ => {}
            }
        }
    }
}

pub fn unit(path: &str) -> Result<(Nation, u32), String> {
    let (n, num) = path.split_once('.').ok_or(format!("bad unit in '{path}'"))?;
    Ok((n.parse()?, num.parse().map_err(|_| format!("bad number in '{path}'"))?))
}

fn str_of(v: &toml::Value) -> Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or(format!("expected a string, got {v}"))
}

fn opt_nation(v: &toml::Value) -> Result<Option<Nation>, String> {
    let s = str_of(v)?;
    if s == "none" { Ok(None) } else { Ok(Some(s.parse()?)) }
}

fn location(s: &str) -> Result<Location, String> {
    match s.split_once(':') {
        Some(("sea", z)) => Ok(Location::Sea(z.into())),
        Some(("port", p)) => Ok(Location::Port(p.into())),
        _ => Err(format!("location '{s}' is not sea:<id> or port:<id>")),
    }
}

pub fn apply_set(state: &mut State, item: &SetItem) -> Result<(), String> {
    let parts: Vec<&str> = item.path.splitn(2, '.').collect();
    let rest = parts.get(1).copied().unwrap_or("");
    let v = &item.value;
    match parts[0] {
        "corps" => {
            let (unit_part, field) = rest.rsplit_once('.').ok_or("corps.<nation>.<n>.<field>")?;
            let (nation, number) = unit(unit_part)?;
            if state.corps(&nation, number).is_none() {
                state.corps.push(Corps {
                    nation: nation.clone(),
                    number,
                    location: None,
                    divisions: vec![],
                    arrives: None,
                    held_by: None,
                });
            }
            let c = state.corps_mut(&nation, number).ok_or("corps")?;
            match field {
                "location" => {
                    let s = str_of(v)?;
                    c.location = (s != "none").then_some(s);
                }
                "divisions" => {
                    let arr = v.as_array().ok_or("divisions: an array of arms")?;
                    c.divisions = arr
                        .iter()
                        .map(|a| {
                            let s = str_of(a)?;
                            let arm = Arm::parse(&s).ok_or(format!("arm '{s}'"))?;
                            Ok(Division {
                                arm,
                                nation: nation.clone(),
                            })
                        })
                        .collect::<Result<_, String>>()?;
                }
                f => return Err(format!("corps field '{f}'")),
            }
        }
        "commander" => {
            let (name, field) = rest.rsplit_once('.').ok_or("commander.<name>.location")?;
            let c = state
                .commanders
                .iter_mut()
                .find(|c| c.name == name)
                .ok_or(format!("no commander {name}"))?;
            match field {
                "location" => {
                    let s = str_of(v)?;
                    c.location = (s != "none").then_some(s);
                }
                "rating" => c.rating = v.as_integer().ok_or("rating")? as u8,
                f => return Err(format!("commander field '{f}'")),
            }
        }
        "province" => {
            let (id, field) = rest.rsplit_once('.').ok_or("province.<id>.<field>")?;
            let p = state.provinces.get_mut(id).ok_or(format!("no province {id}"))?;
            match field {
                "controller" => p.controller = opt_nation(v)?,
                "garrison" => p.garrison = opt_nation(v)?.map(Garrison::of),
                "rebellion" => p.rebellion = v.as_bool().ok_or("rebellion: bool")?,
                f => return Err(format!("province field '{f}'")),
            }
        }
        "squadron" => {
            let (unit_part, field) = rest.rsplit_once('.').ok_or("squadron.<nation>.<n>.<field>")?;
            let (nation, number) = unit(unit_part)?;
            if state.squadron(&nation, number).is_none() {
                state.squadrons.push(empereur::state::Squadron {
                    nation: nation.clone(),
                    number,
                    location: Location::Sea("channel".into()),
                    blockading: None,
                    ships: None,
                    held_by: None,
                });
            }
            let s = state
                .squadrons
                .iter_mut()
                .find(|s| s.nation == nation && s.number == number)
                .ok_or("squadron")?;
            match field {
                "location" => s.location = location(&str_of(v)?)?,
                "blockading" => s.blockading = Some(str_of(v)?),
                "ships" => s.ships = Some(v.as_integer().ok_or("ships: integer")? as u32),
                "held_by" => s.held_by = Some(str_of(v)?.parse()?),
                f => return Err(format!("squadron field '{f}'")),
            }
        }
        "power" => {
            let (p, field) = rest.split_once('.').ok_or("power.<p>.<field>")?;
            let p: PowerId = p.parse()?;
            match field {
                "control" => {
                    let s = str_of(v)?;
                    state.power_mut(p).control = match s.split_once(':') {
                        None if s == "player" => Control::Player,
                        None if s == "inactive" => Control::Inactive,
                        Some(("controlled", by)) => Control::Controlled { by: by.parse()? },
                        Some(("allied", with)) => Control::Allied { with: with.parse()? },
                        _ => return Err(format!("control '{s}'")),
                    };
                }
                "capital_lost_turns" => state.power_mut(p).capital_lost_turns = v.as_integer().ok_or("integer")? as u32,
                "gold" => state.power_mut(p).gold = v.as_integer().ok_or("integer")?,
                f => return Err(format!("power field '{f}'")),
            }
        }
        "hulks" => {
            let (port, owner) = rest.split_once('.').ok_or("hulks.<port>.<owner>")?;
            let n = v.as_integer().ok_or("hulks: integer")? as u32;
            state.hulks.entry(port.into()).or_default().insert(owner.into(), n);
        }
        "standing" => {
            let p: PowerId = rest.parse()?;
            let so: StandingOrders = v.clone().try_into().map_err(|e| format!("standing: {e}"))?;
            state.standing.insert(p, so);
        }
        "minor" => {
            let (m, field) = rest.split_once('.').ok_or("minor.<m>.controller")?;
            let ms = state.minors.get_mut(m).ok_or(format!("no minor {m}"))?;
            match field {
                "controller" => {
                    let s = str_of(v)?;
                    ms.controller = if s == "none" { None } else { Some(s.parse()?) };
                }
                f => return Err(format!("minor field '{f}'")),
            }
        }
        "access" => {
            // 11.9.2.2 C.5: the powers that granted `rest` access by a peace
            let p: PowerId = rest.parse()?;
            let grantors: BTreeSet<PowerId> = v.clone().try_into().map_err(|e| format!("access: {e}"))?;
            state.dominance.access.insert(p, grantors);
        }
        other => return Err(format!("unknown set path '{other}'")),
    }
    Ok(())
}

pub fn lines(orders: &[Order]) -> Vec<OrderLine> {
    orders
        .iter()
        .enumerate()
        .map(|(i, o)| OrderLine {
            order: o.clone(),
            text: format!("{} #{}", o.kind(), i + 1),
            span: empereur::diagnostic::Span::new(i + 1, 1, 1),
        })
        .collect()
}

pub fn loc_str(l: &Location) -> String {
    match l {
        Location::Port(p) => format!("port:{p}"),
        Location::Sea(z) => format!("sea:{z}"),
    }
}
