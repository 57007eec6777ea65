#![allow(clippy::disallowed_methods)] // test adapter: reads the case files
//! THE rule-case harness: every `tests/cases/<area>/<name>.toml` and
//! `tests/war_cases/<area>/<name>.toml` is one situation from the book,
//! in one format, run here and checked. All cases run; every failure is
//! reported by case name and reason.
//!
//! A case either resolves whole phases through `rules::resolve`
//! (`phase = "1807-winter"`), or runs one step of a Player Turn on its own
//! (`phase = "land" | "naval" | "validate" | "surrender" | "due"`, with
//! `active`), or checks a seating (`seating`). It runs on the shipped 1805
//! map; a case that truly needs the small fixture map `tests/fixtures/war/`
//! says `map = "war"` and why, in one line (`map_reason`).
//! The step keys (`[setup]`, `[surrender]`, the `[expect]` keys by unit
//! or province) are documented in `tests/it/case_harness.rs`.
//!
//! A case file:
//! ```toml
//! rule = "4.256"                 # section it tests (required)
//! description = "..."
//! map = "1805"                   # the default; or "war", with
//! map_reason = "..."             #   why the 1805 map cannot serve (required)
//! players = ["france", "spain"]  # Player Countries (default: all seven)
//! phase = "1807-winter"          # the open phase to resolve, or a step
//! active = "france"              # the mover of a step
//! needs_provinces = ["naples"]   # skipped (loudly) while the map lacks them
//! phases = 1                     # how many phases to resolve (orders go to the first)
//! default_die = 5                # value of any die not scripted (else unscripted dice fail)
//!
//! [[set]]                        # changes to the 1805 set-up, by dotted path
//! path = "powers.spain.gold"     # (numbers index arrays)
//! value = 10
//!
//! [[place]]                      # move a corps (and optionally refill it)
//! nation = "france"
//! number = 1
//! at = "naples"                 # or "capital:prussia"
//! divisions = []                 # optional: arms, e.g. ["inf", "cav"]
//! infantry_of = ["poland"]       # optional: other nations' infantry it also holds
//! held_by = "britain"            # optional: a minor corps kept by a former owner (3.41)
//!
//! [[place_squadron]]            # move a squadron
//! nation = "sweden"
//! number = 1
//! at = "sea:north_sea"           # or "port:<province>"
//!
//! [[orders]]                     # the Order enum's serde form (or by power:
//!                                #   [[orders.france]] with the Order's fields)
//! power = "france"
//! order = { order = "buy_vp", gold = 8 }
//!
//! [dice]                         # scripted dice by purpose
//! "turn-start/1806-spring/chit/russia" = 3
//!
//! [[expect.state]]               # state values after resolution
//! path = "powers.spain.gold"
//! value = 8
//!
//! [[expect.corps]]               # where a corps stands after resolution
//! nation = "bavaria"
//! number = 1
//! at = "bavaria"                 # or "none" (off the map)
//! divisions = 2                  # optional: how many divisions it holds
//! commanded_by = "france"        # optional: the power that commands it, or "none"
//!
//! seated = ["spain"]             # 3.2: NPCs the moderator seated a player on: after
//!                                #   each phase, `rules::seating::due` and `seat_players`,
//!                                #   as `empereur resolve` does
//! seating = ["france", "russia"]  # instead of resolving: check this seating (3.0)
//! [expect]
//! seating = "nobody plays"       # "legal", or a substring of the refusal
//!
//! [[expect.outcome]]             # an outcome that must (or must not) exist
//! kind = "embargo-income-loss"
//! power = "spain"                # optional filters and checks:
//! gold = -2                      #   the outcome's Gold change for `power`
//! vp = -5                        #   the outcome's VP change for `power`
//! summary = "loses 2 Gold"       #   a substring of the summary
//! why = "year 1"                 #   a substring of some why line
//! before = "event"               #   it comes before every outcome of that kind
//! count = 3                      #   exactly this many such outcomes
//! absent = true                  #   assert no such outcome (a misspelt kind
//!                                #   makes the case malformed)
//! ```
//! Cases under `tests/cases/political*/` run with the EiA political
//! option (`political`) on.
//!
//! Every case also checks `rules::audit` (Gold/VP changes explained), and
//! that the order checker refuses exactly the orders the engine refuses.

use empereur::ids::{Nation, PhaseId, PowerId, Step};
use empereur::orders::ast::{Order, OrderLine};
use empereur::orders::text::normalise;
use empereur::rules::Kind;
use empereur::rules::{self, Outcome, PhaseOrders};
use empereur::scenario::{Arm, Scenario};
use empereur::state::{Division, Location, State};
use empereur::testing::ScriptedDice;
use serde::Deserialize;

use crate::case_harness::{self, CorpsExpect, Expect, ExpectOutcome, STEPS, SetItem, Setup, SurrenderCase};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    rule: String,
    #[serde(default)]
    description: String,
    /// `1805` (the shipped scenario, the default) or `war` (the small
    /// fixture map), which needs `map_reason`.
    map: Option<String>,
    /// One line: why this case cannot run on the 1805 map.
    map_reason: Option<String>,
    players: Option<Vec<PowerId>>,
    /// The open phase to resolve (`1807-winter`), or one step of
    /// `active`'s Player Turn run on its own (`land`, `naval`,
    /// `validate`, `surrender`, `due`).
    phase: Option<String>,
    /// The mover of a Player Turn step.
    active: Option<PowerId>,
    #[serde(default)]
    needs_provinces: Vec<String>,
    #[serde(default = "one")]
    phases: u32,
    #[serde(alias = "dice_default")]
    default_die: Option<u32>,
    #[serde(default)]
    set: Vec<SetItem>,
    #[serde(default)]
    place: Vec<Place>,
    #[serde(default)]
    place_squadron: Vec<PlaceSquadron>,
    /// Rows of the scenario's house naval table (`tables/naval.toml`)
    /// changed for this case, to show a scenario switch both ways.
    #[serde(default)]
    naval_table: Vec<SetItem>,
    /// Step cases: wars, alliances, enforced peaces, options and the
    /// `case_harness` set paths.
    #[serde(default)]
    setup: Setup,
    #[serde(default)]
    orders: CaseOrders,
    #[serde(default)]
    dice: BTreeMap<String, u32>,
    /// `phase = "surrender"`: who surrenders to whom, on what terms.
    surrender: Option<SurrenderCase>,
    /// 3.0: a seating to check with `rules::setup::check_seating`
    /// instead of resolving a phase.
    seating: Option<Vec<PowerId>>,
    /// 3.2: powers with a player in `game.toml` that are NPCs; each
    /// resolved phase seats them as `empereur resolve` does.
    #[serde(default)]
    seated: Vec<PowerId>,
    #[serde(default)]
    expect: Expect,
}

/// Orders as a list of `{ power, order }`, or by power
/// (`[[orders.france]]`, the Order's serde form).
#[derive(Deserialize)]
#[serde(untagged)]
enum CaseOrders {
    List(Vec<CaseOrder>),
    ByPower(BTreeMap<PowerId, Vec<Order>>),
}

impl Default for CaseOrders {
    fn default() -> Self {
        CaseOrders::List(Vec::new())
    }
}

impl CaseOrders {
    fn by_power(&self) -> BTreeMap<PowerId, Vec<Order>> {
        match self {
            CaseOrders::ByPower(m) => m.clone(),
            CaseOrders::List(v) => {
                let mut m: BTreeMap<PowerId, Vec<Order>> = BTreeMap::new();
                for o in v {
                    m.entry(o.power).or_default().push(o.order.clone());
                }
                m
            }
        }
    }
}

fn one() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Place {
    nation: Nation,
    number: u32,
    at: String,
    divisions: Option<Vec<Arm>>,
    /// Infantry divisions of other nations the corps also holds (a
    /// major's corps may hold its minors' divisions, 3.41).
    #[serde(default)]
    infantry_of: Vec<Nation>,
    held_by: Option<PowerId>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlaceSquadron {
    nation: Nation,
    number: u32,
    at: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseOrder {
    power: PowerId,
    order: Order,
}

enum Verdict {
    Pass,
    Skip(String),
    Fail(Vec<String>),
}

fn navigate<'a>(v: &'a mut toml::Value, path: &str) -> Result<&'a mut toml::Value, String> {
    let mut cur = v;
    for seg in path.split('.') {
        cur = match cur {
            toml::Value::Table(t) => t
                .get_mut(seg)
                .ok_or_else(|| format!("no key '{seg}' in path '{path}'"))?,
            toml::Value::Array(a) => {
                let i: usize = seg
                    .parse()
                    .map_err(|_| format!("'{seg}' is not an index in path '{path}'"))?;
                a.get_mut(i)
                    .ok_or_else(|| format!("index {i} out of range in path '{path}'"))?
            }
            _ => return Err(format!("'{seg}' of path '{path}' is inside a plain value")),
        };
    }
    Ok(cur)
}

fn set_path(state: &State, path: &str, value: &toml::Value) -> Result<State, String> {
    let mut v = toml::Value::try_from(state).map_err(|e| e.to_string())?;
    // Allow setting a key that does not exist yet in its parent table.
    let (parent, last) = path.rsplit_once('.').unwrap_or(("", path));
    let target = if parent.is_empty() {
        &mut v
    } else {
        navigate(&mut v, parent)?
    };
    match target {
        toml::Value::Table(t) => {
            t.insert(last.to_string(), value.clone());
        }
        toml::Value::Array(a) => {
            let i: usize = last.parse().map_err(|_| format!("'{last}' is not an index"))?;
            *a.get_mut(i)
                .ok_or_else(|| format!("index {i} out of range in '{path}'"))? = value.clone();
        }
        _ => return Err(format!("cannot set '{path}'")),
    }
    v.try_into()
        .map_err(|e: toml::de::Error| format!("setting '{path}': {}", e.message()))
}

fn get_path(state: &State, path: &str) -> Result<toml::Value, String> {
    let mut v = toml::Value::try_from(state).map_err(|e| e.to_string())?;
    navigate(&mut v, path).cloned()
}

fn matches(o: &Outcome, e: &ExpectOutcome) -> bool {
    o.kind == e.kind
        && e.power
            .is_none_or(|p| o.power == Some(p) || o.gold.contains_key(&p) || o.vp.contains_key(&p))
        && e.gold
            .is_none_or(|g| e.power.is_some_and(|p| o.gold.get(&p).copied().unwrap_or(0) == g))
        && e.vp
            .is_none_or(|g| e.power.is_some_and(|p| o.vp.get(&p).copied().unwrap_or(0) == g))
        && e.summary.as_ref().is_none_or(|s| o.summary.contains(s.as_str()))
        && e.why
            .as_ref()
            .is_none_or(|s| o.why.iter().any(|w| w.contains(s.as_str())))
}

/// A seating case: the verdict of `rules::setup::check_seating`.
fn run_seating(seating: &[PowerId], want: Option<&String>) -> Verdict {
    let Some(want) = want else {
        return Verdict::Fail(vec!["`seating` needs `expect.seating`".into()]);
    };
    let powers: BTreeSet<PowerId> = seating.iter().copied().collect();
    match (rules::setup::check_seating(&powers), want.as_str()) {
        (Ok(()), "legal") => Verdict::Pass,
        (Err(e), w) if w != "legal" && e.to_string().contains(w) => Verdict::Pass,
        (got, _) => Verdict::Fail(vec![format!("seating {seating:?}: expected {want:?}, got {got:?}")]),
    }
}

/// Run one case.
/// The scenario with rows of its house naval table changed.
fn with_naval_table(s: &Scenario, set: &[SetItem]) -> Result<Scenario, String> {
    let mut v = toml::Value::try_from(&s.tables.naval).map_err(|e| e.to_string())?;
    for i in set {
        *navigate(&mut v, &i.path)? = i.value.clone();
    }
    let mut out = s.clone();
    out.tables.naval = v.try_into().map_err(|e: toml::de::Error| e.message().to_string())?;
    Ok(out)
}

fn run(scenario: &Scenario, case: &Case) -> Verdict {
    if let Some(seating) = &case.seating {
        return run_seating(seating, case.expect.seating.as_ref());
    }
    let missing: Vec<&String> = case
        .needs_provinces
        .iter()
        .filter(|p| scenario.map.province(p).is_none())
        .collect();
    if !missing.is_empty() {
        return Verdict::Skip(format!(
            "needs the real map: the scenario has no province {}",
            missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    let players: BTreeSet<PowerId> = case
        .players
        .clone()
        .unwrap_or_else(|| PowerId::ALL.to_vec())
        .into_iter()
        .collect();
    // one step of a Player Turn run on its own, or whole phases resolved
    let step = case.phase.as_deref().filter(|p| STEPS.contains(p));
    let mut state = State::initial(scenario, "case", &players, BTreeSet::new());
    let mut fails = Vec::new();
    match (step, &case.phase, case.active) {
        (Some(_), _, Some(active)) => state.phase.step = Step::PlayerTurn(active),
        (Some(st), _, None) => return Verdict::Fail(vec![format!("phase '{st}' needs `active`")]),
        (None, Some(ph), _) => match ph.parse::<PhaseId>() {
            Ok(p) => state.phase = p,
            Err(e) => return Verdict::Fail(vec![e]),
        },
        (None, None, _) => {}
    }
    if let Err(e) = case_harness::apply_setup(&mut state, &case.setup) {
        return Verdict::Fail(vec![e]);
    }
    for s in &case.set {
        match set_path(&state, &s.path, &s.value) {
            Ok(st) => state = st,
            Err(e) => return Verdict::Fail(vec![format!("[[set]] {e}")]),
        }
    }
    for p in &case.place {
        // `capital:<power>` names a power's capital on whatever map is loaded.
        let at = match p.at.strip_prefix("capital:").map(str::parse::<PowerId>) {
            Some(Ok(pw)) => scenario.power(pw).capital.clone(),
            Some(Err(e)) => return Verdict::Fail(vec![format!("[[place]] {e}")]),
            None => p.at.clone(),
        };
        let Some(c) = state.corps_mut(&p.nation, p.number) else {
            return Verdict::Fail(vec![format!("[[place]] no corps {} {}", p.nation, p.number)]);
        };
        c.location = Some(at);
        c.arrives = None;
        c.held_by = p.held_by;
        if let Some(d) = &p.divisions {
            c.divisions = d
                .iter()
                .map(|a| Division {
                    arm: *a,
                    nation: p.nation.clone(),
                })
                .collect();
        }
        for n in &p.infantry_of {
            c.divisions.push(Division {
                arm: Arm::Infantry,
                nation: n.clone(),
            });
        }
    }
    for q in &case.place_squadron {
        let loc = match q.at.split_once(':') {
            Some(("sea", z)) => Location::Sea(z.to_string()),
            Some(("port", p)) => Location::Port(p.to_string()),
            _ => {
                return Verdict::Fail(vec![format!(
                    "[[place_squadron]] '{}' is not sea:<id> or port:<id>",
                    q.at
                )]);
            }
        };
        let Some(s) = state
            .squadrons
            .iter_mut()
            .find(|s| s.nation == q.nation && s.number == q.number)
        else {
            return Verdict::Fail(vec![format!(
                "[[place_squadron]] no squadron {} {}",
                q.nation, q.number
            )]);
        };
        s.location = loc;
    }
    if let Err(e) = state.check_against(scenario) {
        return Verdict::Fail(vec![format!("starting state invalid: {e:?}")]);
    }
    let by_power = case.orders.by_power();
    let mut dice = ScriptedDice::new(case.dice.clone(), case.default_die);
    let mut outcomes = Vec::new();
    if let (Some(step), Some(active)) = (step, case.active) {
        let mine = by_power.get(&active).map(Vec::as_slice).unwrap_or(&[]);
        match case_harness::run_step(
            scenario,
            &mut state,
            &case_harness::Step {
                name: step,
                active,
                orders: mine,
                surrender: case.surrender.as_ref(),
                expect: &case.expect,
            },
            &mut dice,
            &mut fails,
        ) {
            Ok(out) => outcomes = out,
            Err(e) => return Verdict::Fail(vec![e]),
        }
    } else {
        let mut orders = PhaseOrders::new();
        for (p, os) in &by_power {
            for o in os {
                orders.entry(*p).or_default().push(OrderLine {
                    order: o.clone(),
                    text: format!("{o:?}"),
                    span: empereur::diagnostic::Span::new(0, 0, 0),
                });
            }
        }
        if let Err(f) = resolve_phases(scenario, case, &mut state, &orders, &mut dice, &mut outcomes) {
            return Verdict::Fail(f);
        }
    }
    check_expectations(&state, &outcomes, &case.expect, &mut fails);
    if fails.is_empty() {
        Verdict::Pass
    } else {
        if step.is_some() || std::env::var_os("RULE_CASE_OUTCOMES").is_some() {
            for o in &outcomes {
                fails.push(format!("  outcome [{}] {}: {}", o.kind, o.rule, o.summary));
                fails.extend(o.why.iter().map(|w| format!("      {w}")));
                fails.extend(o.dice.iter().map(|d| format!("      die {} = {}", d.purpose, d.result)));
            }
        }
        Verdict::Fail(fails)
    }
}

/// Resolve `case.phases` phases through `rules::resolve` (orders go to
/// the first), checking the audit and that the checker agrees with the
/// engine on every order.
fn resolve_phases(
    scenario: &Scenario,
    case: &Case,
    state: &mut State,
    orders: &PhaseOrders,
    dice: &mut ScriptedDice,
    outcomes: &mut Vec<Outcome>,
) -> Result<(), Vec<String>> {
    let mut fails = Vec::new();
    let checker = checker_refusals(scenario, state, orders);
    for i in 0..case.phases {
        let o = if i == 0 { orders.clone() } else { PhaseOrders::new() };
        match rules::resolve(scenario, state, &o, dice) {
            Ok(mut r) => {
                let due = rules::seating::due(state, &r.state, &case.seated);
                r.outcomes.extend(rules::seating::seat_players(&mut r.state, &due));
                if let Err(e) = rules::audit(state, &r.state, &r.outcomes) {
                    fails.push(format!("audit after phase {}: {e}", state.phase));
                }
                if i == 0 {
                    fails.extend(disagreements(orders, &checker, &r.outcomes));
                }
                *state = r.state;
                outcomes.extend(r.outcomes);
            }
            Err(e) => {
                fails.push(format!("resolve {}: {e}", state.phase));
                return Err(fails);
            }
        }
    }
    if fails.is_empty() { Ok(()) } else { Err(fails) }
}

/// Every expectation of a case, after it ran.
fn check_expectations(state: &State, outcomes: &[Outcome], expect: &Expect, fails: &mut Vec<String>) {
    case_harness::check(state, outcomes, expect, fails);
    let corps = match &expect.corps {
        CorpsExpect::At(at) => {
            case_harness::check_corps_at(state, at, fails);
            &[][..]
        }
        CorpsExpect::List(v) => v.as_slice(),
    };
    for e in &expect.state {
        match get_path(state, &e.path) {
            Ok(v) if v == e.value => {}
            Ok(v) => fails.push(format!("{}: expected {}, got {}", e.path, e.value, v)),
            Err(err) => fails.push(err),
        }
    }
    for e in corps {
        let Some(c) = state.corps(&e.nation, e.number) else {
            fails.push(format!("no corps {} {}", e.nation, e.number));
            continue;
        };
        let at = c.location.clone().unwrap_or_else(|| "none".into());
        if at != e.at {
            fails.push(format!(
                "corps {} {}: expected in {}, got {at}",
                e.nation, e.number, e.at
            ));
        }
        if let Some(n) = e.divisions
            && c.divisions.len() != n
        {
            fails.push(format!(
                "corps {} {}: expected {n} divisions, got {}",
                e.nation,
                e.number,
                c.divisions.len()
            ));
        }
        if let Some(want) = &e.commanded_by {
            let got = state
                .corps_power(c)
                .map_or_else(|| "none".to_string(), |p| p.id().to_string());
            if &got != want {
                fails.push(format!(
                    "corps {} {}: expected commanded by {want}, got {got}",
                    e.nation, e.number
                ));
            }
        }
    }
    for e in &expect.outcome {
        let first = outcomes.iter().position(|o| matches(o, e));
        if let (Some(i), Some(k)) = (first, e.before)
            && let Some(j) = outcomes.iter().position(|o| o.kind == k)
            && j < i
        {
            fails.push(format!("outcome {} comes after a {k} outcome, expected before", e.kind));
        }
        if e.before.is_some_and(|k| !outcomes.iter().any(|o| o.kind == k)) {
            fails.push(format!("outcome {}: no {:?} outcome to come before", e.kind, e.before));
        }
        if let Some(n) = e.count {
            let got = outcomes.iter().filter(|o| matches(o, e)).count();
            if got != n {
                fails.push(format!("outcome {}: expected {n} such outcomes, got {got}", e.kind));
            }
        }
        let found = first.is_some();
        if found == e.absent {
            let near: Vec<String> = outcomes
                .iter()
                .filter(|o| o.kind == e.kind)
                .map(|o| {
                    format!(
                        "    {:?} {} gold {:?} vp {:?} why {:?}",
                        o.power, o.summary, o.gold, o.vp, o.why
                    )
                })
                .collect();
            fails.push(format!(
                "outcome {} {:?} gold {:?} vp {:?} summary {:?} why {:?}: {}{}",
                e.kind,
                e.power,
                e.gold,
                e.vp,
                e.summary,
                e.why,
                if e.absent {
                    "present but must be absent"
                } else {
                    "not found"
                },
                if near.is_empty() {
                    " (no outcome of that kind)".to_string()
                } else {
                    format!("; outcomes of that kind:\n{}", near.join("\n"))
                }
            ));
        }
    }
}

/// The case's orders written out as each power would mail them and run
/// through the order checker: for each power, which of its orders the
/// checker refuses (by position).
fn checker_refusals(scenario: &Scenario, state: &State, orders: &PhaseOrders) -> BTreeMap<PowerId, Vec<bool>> {
    let mut out = BTreeMap::new();
    for (p, lines) in orders {
        let texts: Vec<String> = lines.iter().map(|l| normalise(scenario, &l.order)).collect();
        let checked = empereur::orders::check(&texts.join("\n"), scenario, state, Some(*p));
        let refused = (1..=texts.len())
            .map(|no| !checked.accepted.iter().any(|a| a.span.line == no))
            .collect();
        out.insert(*p, refused);
    }
    out
}

/// Every order the checker refuses, resolution refuses before running
/// it (`order-rejected`), and no other: the checker and the engine agree.
fn disagreements(orders: &PhaseOrders, checker: &BTreeMap<PowerId, Vec<bool>>, outcomes: &[Outcome]) -> Vec<String> {
    let mut fails = Vec::new();
    for (p, lines) in orders {
        for (l, refused) in lines.iter().zip(&checker[p]) {
            let engine = outcomes.iter().find(|o| {
                // the same order text may come from two powers (MOVE FIRST)
                o.kind == Kind::OrderRejected && o.power == Some(*p) && o.order.as_deref() == Some(l.text.as_str())
            });
            if *refused != engine.is_some() {
                fails.push(format!(
                    "checker and engine disagree on {p}'s {}: the checker {}, the engine {}",
                    l.text,
                    if *refused { "refuses it" } else { "accepts it" },
                    engine.map_or("takes it".to_string(), |o| format!("refuses it: {}", o.summary)),
                ));
            }
        }
    }
    fails
}

fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            case_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn rule_cases() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/cases", "tests/war_cases"] {
        case_files(&base.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() >= 100, "expected the rule cases, found {}", files.len());
    // `RULE_CASE=battle/ cargo test --test it rules_cases::` runs the cases
    // whose path contains the text (while writing one); with
    // `RULE_CASE_OUTCOMES=1` a failing phase case lists its outcomes too
    if let Ok(only) = std::env::var("RULE_CASE") {
        files.retain(|f| f.to_string_lossy().contains(only.as_str()));
    }
    let shipped = Scenario::embedded("1805").expect("the 1805 scenario loads");
    let fixture = case_harness::fixture();
    let (mut passed, mut skipped, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    for f in &files {
        let name = f.strip_prefix(base).unwrap_or(f).display().to_string();
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                failed.push(format!("{name}: unreadable: {e}"));
                continue;
            }
        };
        let mut case: Case = match toml::from_str(&text) {
            Ok(c) => c,
            Err(e) => {
                failed.push(format!("{name}: malformed case: {}", e.message().trim()));
                continue;
            }
        };
        // cases of the EiA political option (11.x) run with it on (a case
        // may still set `options` to show the difference it makes)
        if name.starts_with("tests/cases/political") {
            case.setup.options.push("political".into());
        }
        // every case on the 1805 map; the small fixture map only where a
        // case says why it must
        let scenario = match case.map.as_deref().unwrap_or("1805") {
            "1805" => &shipped,
            "war" if case.map_reason.as_deref().is_none_or(|r| r.trim().is_empty()) => {
                failed.push(format!(
                    "{name}: map = \"war\" needs map_reason (one line: why the 1805 map cannot serve)"
                ));
                continue;
            }
            "war" => &fixture,
            other => {
                failed.push(format!("{name}: no map '{other}' (1805 or war)"));
                continue;
            }
        };
        let changed;
        let scenario = if case.naval_table.is_empty() {
            scenario
        } else {
            match with_naval_table(scenario, &case.naval_table) {
                Ok(s) => {
                    changed = s;
                    &changed
                }
                Err(e) => {
                    failed.push(format!("{name}: naval_table: {e}"));
                    continue;
                }
            }
        };
        match run(scenario, &case) {
            Verdict::Pass => passed.push(name),
            Verdict::Skip(why) => skipped.push(format!("{name} ({}): {why}", case.rule)),
            Verdict::Fail(why) => failed.push(format!(
                "{name} (rule {}: {}):\n  {}",
                case.rule,
                case.description,
                why.join("\n  ")
            )),
        }
    }
    println!(
        "rule cases: {} passed, {} skipped, {} failed",
        passed.len(),
        skipped.len(),
        failed.len()
    );
    for s in &skipped {
        println!("SKIPPED {s}");
    }
    assert!(
        failed.is_empty(),
        "{} rule case(s) failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
