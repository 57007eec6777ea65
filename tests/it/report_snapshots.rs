//! The rendered report of every battle and naval rule case
//! (`tests/war_cases/battle/`, `tests/war_cases/naval/`), as the
//! moderator's turn report shows it, kept as an insta snapshot
//! (`tests/it/snapshots/report_snapshots__<area>-<case>.snap`): a change of
//! wording or content in what players read fails until the new text is
//! reviewed and accepted. A missing snapshot fails too (insta writes a
//! `.snap.new` beside it, or nothing under `CI=true`); after a deliberate
//! change: `cargo insta review` (or `INSTA_UPDATE=always cargo test --test
//! report_snapshots`), then read the diff before committing.
//!
//! The cases are run as the rule-case harness runs a Player Turn step
//! (`tests/it/rules_cases.rs`, with the same `case_harness`); what they
//! assert stays there, this file only keeps what they render.
#![allow(clippy::disallowed_methods)] // test adapter: reads the case files

use empereur::ids::{PowerId, Step};
use empereur::orders::ast::Order;
use empereur::report::{Templates, TurnReportView};
use empereur::state::State;
use empereur::testing::ScriptedDice;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::case_harness::{self, Expect, Setup};

/// The part of a military case a step needs (the rest is the harness's).
#[derive(Deserialize)]
struct StepCase {
    rule: String,
    #[serde(default)]
    description: String,
    phase: String,
    active: PowerId,
    /// `1805` (the default) or `war`, the small fixture map.
    map: Option<String>,
    /// Top-level `[[set]]`: a value put at a dotted path of the state.
    #[serde(default)]
    set: Vec<TopSet>,
    #[serde(default)]
    setup: Setup,
    #[serde(default)]
    orders: BTreeMap<PowerId, Vec<Order>>,
    #[serde(default)]
    dice: BTreeMap<String, u32>,
    #[serde(alias = "dice_default")]
    default_die: Option<u32>,
    #[serde(default)]
    expect: Expect,
}

#[derive(Deserialize)]
struct TopSet {
    path: String,
    value: toml::Value,
}

/// Put `value` at the dotted table path `path` of the state, as the
/// rule-case harness does for a top-level `[[set]]`.
fn set_path(state: &State, path: &str, value: &toml::Value) -> State {
    let mut v = toml::Value::try_from(state).expect("the state as TOML");
    let mut keys: Vec<&str> = path.split('.').collect();
    let last = keys.pop().expect("a path");
    let mut t = &mut v;
    for k in keys {
        t = t.get_mut(k).unwrap_or_else(|| panic!("no '{k}' in '{path}'"));
    }
    t.as_table_mut()
        .unwrap_or_else(|| panic!("'{path}' is not in a table"))
        .insert(last.to_string(), value.clone());
    v.try_into().unwrap_or_else(|e| panic!("setting '{path}': {e}"))
}

/// The moderator's turn report of one case, headed by the case it is;
/// `None` for a case that only asks the checker (`phase = "validate"`),
/// which renders no report.
fn rendered(templates: &Templates, name: &str, text: &str) -> Option<String> {
    let case: StepCase = toml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    if case.phase == "validate" {
        return None;
    }
    let scenario = match case.map.as_deref().unwrap_or("1805") {
        "war" => case_harness::fixture(),
        _ => empereur::scenario::Scenario::embedded("1805").expect("the 1805 scenario"),
    };
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut state = State::initial(&scenario, "case", &players, BTreeSet::new());
    state.phase.step = Step::PlayerTurn(case.active);
    case_harness::apply_setup(&mut state, &case.setup).unwrap_or_else(|e| panic!("{name}: {e}"));
    for s in &case.set {
        state = set_path(&state, &s.path, &s.value);
    }
    let mut dice = ScriptedDice::new(case.dice.clone(), case.default_die);
    let mine = case.orders.get(&case.active).map(Vec::as_slice).unwrap_or(&[]);
    let mut fails = Vec::new();
    let outcomes = case_harness::run_step(
        &scenario,
        &mut state,
        &case_harness::Step {
            name: &case.phase,
            active: case.active,
            orders: mine,
            surrender: None,
            expect: &case.expect,
        },
        &mut dice,
        &mut fails,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let view = TurnReportView {
        game: "case".into(),
        phase: state.phase.to_string(),
        events: TurnReportView::events_for(&outcomes, None),
        ..TurnReportView::default()
    };
    let report = templates
        .render("turn-report", &view)
        .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    Some(format!(
        "case {name} (rule {}): {}\n\n{report}",
        case.rule, case.description
    ))
}

#[test]
fn every_battle_and_naval_case_renders_its_reviewed_report() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let templates = Templates::defaults();
    let (mut seen, mut failures) = (0, Vec::new());
    for area in ["battle", "naval"] {
        let mut files: Vec<_> = std::fs::read_dir(base.join("tests/war_cases").join(area))
            .expect("the case folder")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for f in files {
            let stem = f.file_stem().and_then(|s| s.to_str()).expect("a case name");
            let name = format!("{area}-{stem}");
            let text = std::fs::read_to_string(&f).expect("a readable case");
            let Some(report) = rendered(&templates, &name, &text) else {
                continue;
            };
            // every case is compared (and every new snapshot written as
            // .snap.new) before the test fails
            let compared = std::panic::catch_unwind(|| {
                insta::with_settings!({ description => format!("tests/war_cases/{area}/{stem}.toml"), omit_expression => true }, {
                    insta::assert_snapshot!(name.clone(), report);
                });
            });
            if compared.is_err() {
                failures.push(name);
            }
            seen += 1;
        }
    }
    assert!(seen >= 30, "expected the battle and naval cases, found {seen}");
    assert!(failures.is_empty(), "snapshots missing or different: {failures:?}");
}

/// Issue 33 (first contact): what a player reads of a battle names every
/// power by its name ("France retreats to Hamburg", "British squadron 1
/// blockading Paris"), never by the id the files keep ("france"). Only
/// the dice lines name ids: a die's purpose is the key the dice protocol
/// checks, quoted as written.
#[test]
fn battle_and_naval_reports_name_no_power_by_its_id() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let templates = Templates::defaults();
    // a power's id as a whole word (`france`, not `France` nor `francesca`)
    let names_an_id = |line: &str| {
        line.split(|c: char| !c.is_alphanumeric())
            .any(|w| PowerId::ALL.iter().any(|p| p.id() == w))
    };
    let (mut seen, mut named_by_id) = (0, Vec::new());
    for area in ["battle", "naval"] {
        for f in std::fs::read_dir(base.join("tests/war_cases").join(area))
            .expect("the case folder")
            .flatten()
        {
            let path = f.path();
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let name = format!("{area}-{}", path.file_stem().and_then(|s| s.to_str()).expect("a name"));
            let text = std::fs::read_to_string(&path).expect("a readable case");
            let Some(report) = rendered(&templates, &name, &text) else {
                continue;
            };
            seen += 1;
            // the case's own heading and the report's phase line quote
            // the case and phase ids; the dice lines their purposes
            for line in report.lines().skip(2).filter(|l| !l.trim_start().starts_with("die ")) {
                if names_an_id(line) && !line.contains("report of phase") {
                    named_by_id.push(format!("{name}: {line}"));
                }
            }
        }
    }
    assert!(seen >= 30, "expected the battle and naval cases, found {seen}");
    assert!(
        named_by_id.is_empty(),
        "powers named by their ids:\n{}",
        named_by_id.join("\n")
    );
}
