//! The order checker and the engine agree: both ask `rules::legality`,
//! and an order set is judged against the state as the phase will have
//! changed it by the time each order runs. Each test below is a case the
//! two used to disagree on.

use empereur::ids::{PhaseId, PowerId};
use empereur::orders::{self, Checked};
use empereur::rules::{self, Outcome, PhaseOrders};
use empereur::scenario::Scenario;
use empereur::state::State;
use empereur::testing::ScriptedDice;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

fn scenario() -> &'static Scenario {
    static S: OnceLock<Scenario> = OnceLock::new();
    S.get_or_init(|| Scenario::embedded("1805").unwrap())
}

fn state_at(phase: &str) -> State {
    let all: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut s = State::initial(scenario(), "legality", &all, BTreeSet::new());
    s.phase = phase.parse::<PhaseId>().unwrap();
    s
}

fn check(state: &State, power: PowerId, text: &str) -> Checked {
    orders::check(text, scenario(), state, Some(power))
}

/// Resolve the accepted and the refused orders of `checked` together,
/// with every die `die`; the outcomes that name an order.
fn resolve(state: &State, power: PowerId, checked: &Checked, die: u32) -> Vec<Outcome> {
    let mut lines = checked.accepted.clone();
    lines.extend(checked.refused.iter().cloned());
    lines.sort_by_key(|l| l.span.line);
    let orders: PhaseOrders = [(power, lines)].into();
    let mut dice = ScriptedDice::new(BTreeMap::new(), Some(die));
    rules::resolve(scenario(), state, &orders, &mut dice).unwrap().outcomes
}

fn refused_by_engine(outcomes: &[Outcome]) -> Vec<(String, String)> {
    outcomes
        .iter()
        .filter(|o| o.kind == "order-rejected" || o.kind == "order-failed")
        .map(|o| (o.order.clone().unwrap_or_default(), o.summary.clone()))
        .collect()
}

/// The checker's refusals and the engine's are the same orders.
fn assert_agree(checked: &Checked, outcomes: &[Outcome]) {
    let engine: BTreeSet<String> = refused_by_engine(outcomes).into_iter().map(|(o, _)| o).collect();
    let checker: BTreeSet<String> = checked.refused.iter().map(|l| l.text.clone()).collect();
    assert_eq!(
        checker, engine,
        "checker {:?}\nengine {:?}",
        checked.diagnostics, outcomes
    );
}

#[test]
fn winter_refuses_move_first_and_a_peace_offer_alike_and_lists_what_it_takes() {
    let mut state = state_at("1806-winter");
    state.relations.set_war(PowerId::France, PowerId::Austria, true);
    let c = check(
        &state,
        PowerId::France,
        "MOVE FIRST\nOFFER PEACE TO Austria\nBUY VP WITH 8 GOLD",
    );
    let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["wrong-phase", "wrong-phase"], "{:?}", c.diagnostics);
    for d in &c.diagnostics {
        // The list is what the engine takes in Winter: no diplomacy.
        assert!(d.message.contains("BUY VP, GIFT, LOAN, NPC ALLIANCE"), "{}", d.message);
        assert!(!d.message.contains("diplomacy"), "{}", d.message);
        assert!(d.message.ends_with("(3.7)"), "{}", d.message);
    }
    assert_agree(&c, &resolve(&state, PowerId::France, &c, 5));
}

#[test]
fn a_deficit_the_treasury_repays_does_not_block_a_purchase() {
    // 4.221: France with 45 Gold and a 3-Gold deficit repays it and buys.
    let mut state = state_at("1806-winter");
    let france = state.power_mut(PowerId::France);
    france.gold = 45;
    france.debt = 3;
    let c = check(&state, PowerId::France, "BUY VP WITH 8 GOLD");
    assert!(c.all_accepted(), "{:?}", c.diagnostics);
    let out = resolve(&state, PowerId::France, &c, 5);
    assert!(out.iter().any(|o| o.kind == "vp-purchase"), "{out:?}");
    assert_agree(&c, &out);
}

#[test]
fn a_deficit_larger_than_the_treasury_blocks_every_purchase_in_checker_and_engine() {
    let mut state = state_at("1805-fall-build");
    let france = state.power_mut(PowerId::France);
    france.gold = 10;
    france.debt = 30;
    let c = check(&state, PowerId::France, "BUILD 1 SQUADRON IN Brest");
    assert_eq!(c.diagnostics[0].code, "cannot-pay", "{:?}", c.diagnostics);
    assert!(
        c.diagnostics[0].message.contains("(4.221)"),
        "{}",
        c.diagnostics[0].message
    );
    assert_agree(&c, &resolve(&state, PowerId::France, &c, 5));
}

#[test]
fn a_war_declared_earlier_in_the_turn_lets_the_attack_through() {
    // 5.3 resolves before 5.5: the declaration counts for the march.
    let mut state = state_at("1805-fall-france");
    state.relations.set_war(PowerId::France, PowerId::Austria, false);
    let from = scenario()
        .map
        .land_neighbours("tyrol")
        .find(|p| {
            state
                .provinces
                .get(*p)
                .and_then(|s| s.controller.as_ref())
                .is_some_and(|n| n.major() == Some(PowerId::France))
        })
        .or_else(|| scenario().map.land_neighbours("tyrol").next())
        .unwrap()
        .to_string();
    let nation = empereur::ids::Nation::Major(PowerId::France);
    state.corps_mut(&nation, 1).unwrap().location = Some(from.clone());
    let text = "ATTACK corps 1 -> Tyrol\nDECLARE WAR ON Austria";
    let c = check(&state, PowerId::France, text);
    assert!(c.all_accepted(), "{:?}", c.diagnostics);
    // A die the Cancel Declaration Table does not cancel on.
    let cancel = &scenario().tables.diplomacy.cancel_declaration;
    let die = (1..=10).find(|d| !cancel.contains(d)).unwrap();
    let out = resolve(&state, PowerId::France, &c, die);
    assert!(out.iter().any(|o| o.kind == "war-declared"), "{out:?}");
    assert_agree(&c, &out);
}

#[test]
fn a_unit_ordered_twice_is_refused_the_second_time_by_both() {
    let mut state = state_at("1805-fall-france");
    let nation = empereur::ids::Nation::Major(PowerId::France);
    let at = state.corps(&nation, 1).unwrap().location.clone().unwrap();
    let next = scenario()
        .map
        .land_neighbours(&at)
        .find(|p| {
            state
                .provinces
                .get(*p)
                .and_then(|s| s.controller.as_ref())
                .is_some_and(|n| n.major() == Some(PowerId::France))
        })
        .unwrap()
        .to_string();
    state.corps_mut(&nation, 1).unwrap().location = Some(at.clone());
    let text = format!("MOVE corps 1 -> {next}\nMOVE corps 1 -> {next}");
    let c = check(&state, PowerId::France, &text);
    assert_eq!(c.accepted.len(), 1, "{:?}", c.diagnostics);
    assert_eq!(c.diagnostics[0].code, "already-ordered");
    assert_eq!(c.diagnostics[0].span.line, 2);
    assert_agree(&c, &resolve(&state, PowerId::France, &c, 5));
}

#[test]
fn a_build_for_a_destroyed_corps_is_refused_by_both() {
    let mut state = state_at("1805-fall-build");
    let nation = empereur::ids::Nation::Major(PowerId::France);
    let corps = state.corps_mut(&nation, 2).unwrap();
    corps.location = None;
    corps.divisions.clear();
    let c = check(&state, PowerId::France, "BUILD corps 2: 1 inf");
    assert!(!c.all_accepted(), "a destroyed corps was accepted");
    assert!(
        c.diagnostics[0].message.contains("not on the map"),
        "{:?}",
        c.diagnostics
    );
    assert_agree(&c, &resolve(&state, PowerId::France, &c, 5));
}

#[test]
fn a_blockade_of_a_port_held_by_a_power_at_peace_is_refused_by_both() {
    let mut state = state_at("1805-fall-britain");
    // A British squadron at sea off a Spanish port, Spain at peace.
    state.relations.set_war(PowerId::Britain, PowerId::Spain, false);
    let port = scenario()
        .map
        .provinces
        .iter()
        .find(|p| {
            p.port
                && state
                    .provinces
                    .get(&p.id)
                    .and_then(|s| s.controller.as_ref())
                    .is_some_and(|n| n.major() == Some(PowerId::Spain))
        })
        .unwrap();
    let sea = port.seas[0].clone();
    let uk = empereur::ids::Nation::Major(PowerId::Britain);
    let sq = state.squadrons.iter_mut().find(|s| s.nation == uk).unwrap();
    sq.location = empereur::state::Location::Sea(sea);
    let number = sq.number;
    let text = format!("BLOCKADE squadron {number} IN {}", port.name);
    let c = check(&state, PowerId::Britain, &text);
    assert!(!c.all_accepted(), "blockade at peace accepted");
    assert!(c.diagnostics[0].message.contains("not at war"), "{:?}", c.diagnostics);
    assert_agree(&c, &resolve(&state, PowerId::Britain, &c, 5));
}

#[test]
fn builds_are_priced_as_the_engine_charges_them() {
    // 2.71: the checker charges the Build Phase's price, not the list cost.
    let mut state = state_at("1805-fall-build");
    state.power_mut(PowerId::France).gold = 1000;
    let c = check(
        &state,
        PowerId::France,
        "BUILD 1 SQUADRON IN Brest\nBUILD corps 1: 1 inf",
    );
    assert_agree(&c, &resolve(&state, PowerId::France, &c, 5));
}
