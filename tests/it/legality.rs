//! The order checker and the engine agree: both ask `rules::legality`,
//! and an order set is judged against the state as the phase will have
//! changed it by the time each order runs. Each test below is a case the
//! two used to disagree on.

use empereur::autoplay::{self, Rng, SeededDice};
use empereur::ids::{PhaseId, PowerId};
use empereur::orders::ast::{Order, OrderLine, Standing};
use empereur::orders::text::normalise;
use empereur::orders::{self, Checked};
use empereur::rules::Kind;
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

/// A port province whose controller is `power`.
fn port_held_by(state: &State, power: PowerId) -> &'static empereur::map::Province {
    scenario()
        .map
        .provinces
        .iter()
        .find(|p| {
            p.port
                && state
                    .provinces
                    .get(&p.id)
                    .and_then(|s| s.controller.as_ref())
                    .is_some_and(|n| n.major() == Some(power))
        })
        .unwrap_or_else(|| panic!("no port held by {power:?}"))
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
        .filter(|o| o.kind == Kind::OrderRejected || o.kind == Kind::OrderFailed)
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
    assert!(out.iter().any(|o| o.kind == Kind::VpPurchase), "{out:?}");
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
    assert!(out.iter().any(|o| o.kind == Kind::WarDeclared), "{out:?}");
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

/// France's corps 2 destroyed (off the map, no divisions) in the Fall
/// 1805 Build Phase, and France's order to build into it, as checked.
fn build_for_destroyed_french_corps_2() -> (State, Checked) {
    let mut state = state_at("1805-fall-build");
    let nation = empereur::ids::Nation::Major(PowerId::France);
    let corps = state.corps_mut(&nation, 2).unwrap();
    corps.location = None;
    corps.divisions.clear();
    let c = check(&state, PowerId::France, "BUILD corps 2: 1 inf");
    (state, c)
}

#[test]
fn a_build_for_a_destroyed_corps_is_refused_by_both() {
    let (state, c) = build_for_destroyed_french_corps_2();
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
    let port = port_held_by(&state, PowerId::Spain);
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

/// Change a generated order set the ways a player's mail goes wrong: an
/// order repeated, the set reversed, an order dropped (a declaration of
/// war, say, that a later attack needed), another power's order copied in.
fn mutate(lines: &mut Vec<OrderLine>, foreign: &[OrderLine], rng: &mut Rng) {
    match rng.index(5) {
        0 if !lines.is_empty() => {
            // Marches and voyages are the orders a unit can carry out once.
            let once: Vec<usize> = (0..lines.len())
                .filter(|&i| matches!(lines[i].order, Order::Move { .. } | Order::NavalMove { .. }))
                .collect();
            let i = if once.is_empty() {
                rng.index(lines.len())
            } else {
                once[rng.index(once.len())]
            };
            lines.push(lines[i].clone());
        }
        1 => lines.reverse(),
        2 if !lines.is_empty() => {
            lines.remove(rng.index(lines.len()));
        }
        3 if !foreign.is_empty() => lines.push(foreign[rng.index(foreign.len())].clone()),
        _ => {}
    }
}

#[test]
fn every_order_the_checker_accepts_is_carried_out_or_fails_for_dice_or_other_powers() {
    let s = scenario();
    let all: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut state = State::initial(s, "property", &all, BTreeSet::new());
    let mut rng = Rng::new(13);
    let (mut accepted_total, mut carried_out) = (0usize, 0usize);
    let mut wrong = Vec::new();
    for round in 0..60u64 {
        if state.over.is_some() {
            break;
        }
        let generated: BTreeMap<PowerId, Vec<OrderLine>> = PowerId::ALL
            .into_iter()
            .map(|p| (p, autoplay::generate(s, &state, p, round * 31 + p as u64)))
            .collect();
        let mut orders = PhaseOrders::new();
        for p in PowerId::ALL {
            let foreign: Vec<OrderLine> = generated
                .iter()
                .filter(|(q, _)| **q != p)
                .flat_map(|(_, l)| l.iter().cloned())
                .collect();
            let mut lines = generated[&p].clone();
            for _ in 0..3 {
                mutate(&mut lines, &foreign, &mut rng);
            }
            let text: Vec<String> = lines.iter().map(|l| normalise(s, &l.order)).collect();
            let checked = orders::check(&text.join("\n"), s, &state, Some(p));
            accepted_total += checked.accepted.len();

            orders.insert(p, checked.accepted);
        }
        let mut dice = SeededDice::new(20 + round);
        let r = rules::resolve(s, &state, &orders, &mut dice).unwrap();
        // Only an order that failed without a die of its own says it was
        // legal when the phase opened, and what it names as the change
        // is what no one could foresee (a roll, a peace, an alliance),
        // never an outcome that was certain (a march, a refusal).
        for (i, o) in r.outcomes.iter().enumerate() {
            let Some(why) = o.why.iter().find(|w| w.contains("legal when the phase opened")) else {
                continue;
            };
            assert!(
                o.kind == Kind::OrderFailed && o.dice.is_empty(),
                "{} {:?} with dice {:?} says: {why}",
                o.kind,
                o.summary,
                o.dice
            );
            let unforeseen: Vec<&str> = r.outcomes[..i]
                .iter()
                .filter(|c| !c.dice.is_empty() || matches!(c.kind.as_str(), "peace" | "alliance"))
                .map(|c| c.summary.as_str())
                .collect();
            for c in &r.outcomes[..i] {
                if c.dice.is_empty()
                    && !matches!(c.kind.as_str(), "peace" | "alliance")
                    && !c.summary.is_empty()
                    && !unforeseen.iter().any(|u| u.contains(c.summary.as_str()))
                {
                    assert!(
                        !why.contains(c.summary.as_str()),
                        "{:?} names a certain outcome as its cause: {why}",
                        o.summary
                    );
                }
            }
        }
        for (p, lines) in &orders {
            for l in lines {
                let about: Vec<&Outcome> = r
                    .outcomes
                    .iter()
                    .filter(|o| o.order.as_deref() == Some(l.text.as_str()))
                    .collect();
                let refused = about
                    .iter()
                    .find(|o| o.kind == Kind::OrderRejected || (o.kind == Kind::OrderFailed && o.dice.is_empty()));
                match refused {
                    // A march or a siege can fail because a battle earlier in
                    // the phase (dice, other powers' armies) changed where the
                    // armies stand, or another power accepted a peace; the
                    // outcome then names what changed.
                    Some(o)
                        if o.kind == Kind::OrderFailed
                            // A unit's second order is known in advance.
                            && !o.summary.contains("already")
                            && o.why.iter().any(|w| w.contains("changed since by"))
                            && changed_before(&r.outcomes, o, &l.text) => {}
                    Some(o) => wrong.push(format!("{} {p}: {} -> {} {}", state.phase, l.text, o.kind, o.summary)),
                    None => carried_out += 1,
                }
            }
        }
        state = r.state;
    }
    assert!(accepted_total > 100, "only {accepted_total} orders accepted");
    assert!(
        wrong.is_empty(),
        "{} of {accepted_total} accepted orders were refused by the engine:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    eprintln!("{carried_out} of {accepted_total} accepted orders carried out");
    assert!(carried_out > 0);
}

/// Whether a battle, a siege, an interception or a blockade run (dice,
/// the other side's forces) in a place the order names, or a peace or an
/// alliance another power accepted, came before outcome `o` in the phase:
/// the order then meets a changed situation.
fn changed_before(outcomes: &[Outcome], o: &Outcome, order: &str) -> bool {
    let places: Vec<&str> = scenario()
        .map
        .provinces
        .iter()
        .map(|p| p.name.as_str())
        .chain(scenario().map.seas.iter().map(|s| s.name.as_str()))
        .filter(|n| order.contains(n))
        .collect();
    outcomes.iter().take_while(|x| !std::ptr::eq(*x, o)).any(|x| {
        (matches!(x.kind.as_str(), "peace" | "alliance") && x.power.is_some() && x.power == o.power)
            || matches!(
                x.kind.as_str(),
                "battle" | "naval-battle" | "interception" | "blockade-run" | "siege"
            ) && places.iter().any(|n| x.summary.contains(n))
    })
}

#[test]
fn a_combat_option_may_be_written_with_spaces_as_the_table_names_it() {
    // `in` inside `defend in depth` must not end the name.
    let state = state_at("1805-fall-france");
    for text in [
        "STANDING COMBAT DEFENDING defend in depth",
        "STANDING COMBAT DEFENDING defend-in-depth",
        "STANDING COMBAT ATTACKING grand assault",
    ] {
        let c = check(&state, PowerId::France, text);
        assert!(c.all_accepted(), "{text}: {:?}", c.diagnostics);
    }
    let c = check(&state, PowerId::France, "STANDING COMBAT DEFENDING defend in depth");
    assert!(
        matches!(&c.accepted[0].order, Order::Standing(Standing::CombatOption { option, .. }) if option == "defend_in_depth"),
        "{:?}",
        c.accepted[0].order
    );
}

#[test]
fn a_misspelt_name_in_a_hyphen_joined_path_gets_its_own_located_suggestion() {
    let state = state_at("1805-fall-france");
    let line = "MOVE corps 1 Paris-Alsace-Bavria";
    let c = check(&state, PowerId::France, line);
    let d = &c.diagnostics[0];
    assert_eq!(d.code, "unknown-province", "{:?}", c.diagnostics);
    assert!(d.message.contains("'Bavria'"), "{}", d.message);
    assert_eq!(d.span.col, line.find("Bavria").unwrap() + 1);
    assert_eq!(d.span.len, "Bavria".len());
    let help = d.help.as_deref().unwrap_or("");
    assert!(help.starts_with("did you mean Bavaria"), "{help}");
    assert!(!help.contains("Cyrenica") && !help.contains("Brindisi"), "{help}");
}

/// Check and render a file of `n` order lines, 40 % of them rejected.
#[allow(clippy::disallowed_methods)] // the test measures time; the core never does
fn check_and_render(n: usize) -> std::time::Duration {
    let state = state_at("1805-fall-france");
    let text: String = (0..n)
        .map(|i| {
            if i % 5 < 2 {
                "MOVE corps 1 -> Viena\n"
            } else {
                "STANDING INTERCEPT ON\n"
            }
        })
        .collect();
    let t = crate::cpu_clock::Clock::start();
    let c = check(&state, PowerId::France, &text);
    let shown = orders::render_all(&c, "orders.txt", &text);
    assert!(shown.len() > n);
    t.elapsed()
}

#[test]
fn checking_a_long_file_of_rejected_lines_stays_linear() {
    // Rendering must not look each diagnostic's line up from the start of
    // the text. Four times the lines may take about four times as long,
    // never sixteen (a ratio, so the machine's speed does not matter).
    // This thread's CPU time, the best of three: a busy machine stretched
    // the wall clock of one size and not the other.
    let small = crate::cpu_clock::best(3, || check_and_render(500));
    let large = crate::cpu_clock::best(3, || check_and_render(2_000));
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    assert!(
        ratio < 8.0,
        "2,000 lines took {ratio:.1}x as long as 500 ({large:?} vs {small:?})"
    );
}

/// France at war with Austria, French corps 1 beside an Austrian province
/// that no corps holds (its corps taken off the map); that province.
fn french_corps_beside_an_empty_austrian_province() -> (State, String) {
    let mut state = state_at("1805-fall-france");
    state.relations.set_war(PowerId::France, PowerId::Austria, true);
    let (target, from) = scenario()
        .map
        .provinces
        .iter()
        .filter(|p| p.owner == empereur::map::Owner::Major(PowerId::Austria) && !p.white)
        .find_map(|p| {
            let from = scenario().map.land_neighbours(&p.id).next()?;
            Some((p.id.clone(), from.to_string()))
        })
        .expect("an Austrian province with a land neighbour");
    for c in state.corps.iter_mut() {
        if c.location.as_deref() == Some(target.as_str()) || c.location.as_deref() == Some(from.as_str()) {
            c.location = None;
        }
    }
    let france = empereur::ids::Nation::Major(PowerId::France);
    state.corps_mut(&france, 1).unwrap().location = Some(from);
    (state, target)
}

#[test]
fn a_siege_of_the_province_a_move_of_the_same_set_enters_is_accepted_by_both() {
    // The corps stands in the province only once the move of the same
    // set has run: judged against the start of the phase, it would not.
    let (state, target) = french_corps_beside_an_empty_austrian_province();
    let name = &scenario().map.province(&target).unwrap().name;
    let text = format!("MOVE corps 1 -> {name}\nBESIEGE corps 1 in {name}");
    let c = check(&state, PowerId::France, &text);
    assert!(c.all_accepted(), "{:?}", c.diagnostics);
    let out = resolve(&state, PowerId::France, &c, 5);
    assert!(out.iter().any(|o| o.kind == Kind::Siege), "{out:?}");
    assert_agree(&c, &out);
}

#[test]
fn a_siege_where_the_corps_will_not_stand_is_refused_by_both() {
    let (state, target) = french_corps_beside_an_empty_austrian_province();
    let name = &scenario().map.province(&target).unwrap().name;
    let text = format!("BESIEGE corps 1 in {name}");
    let c = check(&state, PowerId::France, &text);
    assert!(!c.all_accepted());
    // 5.5: the corps is not where it besieges, as a commander away from
    // his stack is not there (2.24)
    assert_eq!(c.diagnostics[0].code, "not-there", "{:?}", c.diagnostics);
    assert!(c.diagnostics[0].message.contains("is not in"), "{:?}", c.diagnostics);
    points_at(&state, PowerId::France, &text, "corps 1");
    let out = resolve(&state, PowerId::France, &c, 5);
    assert_agree(&c, &out);
}

/// 5.12 runs in the Peace Step, before the embargo orders: a surrender
/// brings the corps in Berlin home (5.123), so the Continental System
/// declared after it lacks its troops in Berlin (4.24). The checker judged
/// the declaration before the surrender and accepted it.
#[test]
fn a_surrender_counts_for_the_orders_after_it() {
    let mut state = state_at("1805-fall-france");
    state.relations.set_war(PowerId::France, PowerId::Russia, true);
    let corps = state
        .corps
        .iter_mut()
        .find(|c| c.nation == empereur::ids::Nation::Major(PowerId::France))
        .unwrap();
    corps.location = Some("berlin".into());
    let alone = check(&state, PowerId::France, "DECLARE CONTINENTAL SYSTEM");
    assert!(alone.refused.is_empty(), "{:?}", alone.diagnostics);
    let c = check(
        &state,
        PowerId::France,
        "DECLARE CONTINENTAL SYSTEM\nSURRENDER TO Russia GOLD 5",
    );
    let refused: Vec<&str> = c.refused.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(refused, ["DECLARE CONTINENTAL SYSTEM"], "{:?}", c.diagnostics);
    assert_agree(&c, &resolve(&state, PowerId::France, &c, 1));
}

#[test]
fn out_of_turn_the_refusal_names_the_answers_the_phase_takes() {
    // In Britain's Player Turn, France may only answer Britain's offers
    // (5.1, 5.2); a purchase is refused, and the refusal says, in the
    // words of the order language, what France may send now.
    let state = state_at("1805-fall-britain");
    let c = check(&state, PowerId::France, "BUY VP WITH 8 GOLD");
    assert!(!c.all_accepted(), "a Winter purchase accepted in a Player Turn");
    let message = &c.diagnostics[0].message;
    for answer in ["ACCEPT PEACE", "REJECT PEACE", "ACCEPT ALLIANCE"] {
        assert!(message.contains(answer), "{answer} missing from: {message}");
    }
    assert!(
        !message.contains("accept-peace"),
        "an internal kind name leaked: {message}"
    );
    assert_agree(&c, &resolve(&state, PowerId::France, &c, 5));
}

/// A check the parser made against the state, now made once by the
/// legality gate: the order parses, the gate refuses it (so the engine,
/// which asks the same gate, refuses it too) with `reason`. Before the
/// move the parser dropped the line and neither refused it nor let the
/// engine see it.
fn refused_by_the_gate_alone(state: &State, power: PowerId, text: &str, code: &str, reason: &str) {
    let c = check(state, power, text);
    let refused: Vec<&str> = c.refused.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(refused.len(), 1, "the gate did not judge it: {:?}", c.diagnostics);
    assert_eq!(c.diagnostics.len(), 1, "{:?}", c.diagnostics);
    assert_eq!(c.diagnostics[0].code, code, "{:?}", c.diagnostics);
    assert!(c.diagnostics[0].message.contains(reason), "{:?}", c.diagnostics);
    let out = resolve(state, power, &c, 5);
    let engine = refused_by_engine(&out);
    assert!(
        engine.iter().any(|(o, why)| o == refused[0] && why.contains(reason)),
        "{engine:?}"
    );
    assert_agree(&c, &out);
}

/// A French-controlled province with no garrison and no other corps,
/// with French corps 1 standing in it alone.
fn french_corps_1_alone_at_home() -> (State, String) {
    let mut state = state_at("1805-fall-france");
    let france = empereur::ids::Nation::Major(PowerId::France);
    let home = scenario()
        .map
        .provinces
        .iter()
        .find(|p| {
            let ps = state.provinces.get(&p.id);
            ps.and_then(|s| s.controller.as_ref()) == Some(&france)
                && ps.is_some_and(|s| s.garrison.is_none())
                && !p.white
                && state.corps_in(&p.id).next().is_none()
        })
        .expect("a French province without a garrison")
        .id
        .clone();
    state.corps_mut(&france, 1).unwrap().location = Some(home.clone());
    (state, home)
}

#[test]
fn a_corps_without_infantry_to_leave_is_refused_a_garrison_by_the_gate() {
    // 2.23, 3.41: only a major power's infantry division garrisons.
    let (mut state, _) = french_corps_1_alone_at_home();
    let france = empereur::ids::Nation::Major(PowerId::France);
    state.corps_mut(&france, 1).unwrap().divisions = vec![empereur::state::Division {
        arm: empereur::scenario::Arm::Cavalry,
        nation: france.clone(),
    }];
    refused_by_the_gate_alone(&state, PowerId::France, "GARRISON corps 1", "illegal", "infantry");
    points_at(&state, PowerId::France, "GARRISON corps 1", "corps 1");
}

#[test]
fn a_garrison_withdrawn_where_there_is_none_is_refused_by_the_gate() {
    // 2.23: a corps takes back a garrison of its own power only.
    let (state, home) = french_corps_1_alone_at_home();
    let name = &scenario().map.province(&home).unwrap().name;
    let text = format!("WITHDRAW GARRISON FROM {name} INTO corps 1");
    refused_by_the_gate_alone(&state, PowerId::France, &text, "illegal", "garrison");
    points_at(&state, PowerId::France, &text, name);
}

#[test]
fn an_npc_alliance_with_a_player_country_is_refused_by_the_gate() {
    // 4.4: the NPC Alliance Table is for NPCs (Austria is played here).
    let state = state_at("1806-winter");
    refused_by_the_gate_alone(
        &state,
        PowerId::France,
        "NPC ALLIANCE WITH Austria",
        "not-an-npc",
        "Austria is a Player Country; use PROPOSE ALLIANCE (5.2)",
    );
    points_at(&state, PowerId::France, "NPC ALLIANCE WITH Austria", "Austria");
}

#[test]
fn divisions_past_a_corps_boxes_are_refused_by_the_gate() {
    // 2.22: a full corps takes no more divisions.
    let mut state = state_at("1805-fall-build");
    state.power_mut(PowerId::France).gold = 1000;
    let france = empereur::ids::Nation::Major(PowerId::France);
    let corps = state.corps_mut(&france, 5).unwrap();
    let full = corps.capacity();
    corps.divisions = (0..full)
        .map(|_| empereur::state::Division {
            arm: empereur::scenario::Arm::Infantry,
            nation: france.clone(),
        })
        .collect();
    refused_by_the_gate_alone(&state, PowerId::France, "BUILD corps 5: 1 inf", "illegal", "boxes");
    points_at(&state, PowerId::France, "BUILD corps 5: 1 inf", "corps 5");
}

#[test]
fn a_squadron_built_in_a_port_of_another_power_is_refused_by_the_gate() {
    // 6.0: squadrons are built in a port the builder controls.
    let mut state = state_at("1805-fall-build");
    state.power_mut(PowerId::France).gold = 1000;
    let port = port_held_by(&state, PowerId::Britain);
    let text = format!("BUILD 1 SQUADRON IN {}", port.name);
    refused_by_the_gate_alone(
        &state,
        PowerId::France,
        &text,
        "illegal",
        "is not a port France controls",
    );
    points_at(&state, PowerId::France, &text, &port.name);
}

#[test]
fn divisions_of_a_minor_another_power_holds_are_refused_by_the_gate() {
    // 3.44: a minor's units are built by the power that holds it.
    let mut state = state_at("1805-fall-build");
    state.power_mut(PowerId::France).gold = 1000;
    refused_by_the_gate_alone(
        &state,
        PowerId::France,
        "BUILD corps 3: 1 Bavarian inf",
        "illegal",
        "may not build",
    );
    points_at(&state, PowerId::France, "BUILD corps 3: 1 Bavarian inf", "Bavarian");
}

#[test]
fn a_player_is_told_only_the_orders_their_game_takes() {
    // 3.7 with the optional modules: REFIT and CONVERT (12.2.8.3-4) are
    // Build Phase orders only with the naval option, the kingdom orders
    // and IMPROVE (11.x) Winter orders only with the political option.
    let mut state = state_at("1805-fall-build");
    let taken = rules::legality::orders_taken(&state, PowerId::France);
    assert_eq!(taken, ["BUILD", "BUILD SQUADRON", "STANDING"]);
    state.options.insert("naval".into());
    let taken = rules::legality::orders_taken(&state, PowerId::France);
    assert_eq!(taken, ["BUILD", "BUILD SQUADRON", "REFIT", "CONVERT", "STANDING"]);
    let mut state = state_at("1806-winter");
    let taken = rules::legality::orders_taken(&state, PowerId::France).join(", ");
    assert!(!taken.contains("CREATE") && !taken.contains("IMPROVE"), "{taken}");
    state.options.insert("political".into());
    let taken = rules::legality::orders_taken(&state, PowerId::France).join(", ");
    assert_eq!(
        taken,
        "BUY VP, GIFT, LOAN, NPC ALLIANCE, Continental System orders, CREATE, ADD … TO, CEDE, \
         ACCEPT <kingdom> FROM, REFUSE <kingdom> FROM, DISSOLVE, IMPROVE, STANDING"
    );
    // Given anyway, the order is refused by its module, not as a stranger.
    let state = state_at("1805-fall-build");
    let c = check(&state, PowerId::France, "REFIT 1 HULKS IN Brest");
    assert!(!c.all_accepted());
    assert!(c.diagnostics[0].message.contains("naval option"), "{:?}", c.diagnostics);
}

/// A minor power is named by its adjective, its id or an alias, and each
/// is the same nation: Denmark/Norway's id `denmark` is neither its name
/// nor its adjective, so only the id matches it.
#[test]
fn a_minor_is_the_same_nation_by_adjective_id_or_alias() {
    let state = state_at("1805-fall-build");
    let said = |nation: &str| -> Vec<String> {
        let c = check(&state, PowerId::France, &format!("BUILD corps 3: 1 {nation} inf"));
        c.diagnostics.iter().map(|d| d.message.clone()).collect()
    };
    let danish = said("Danish");
    assert!(danish.iter().any(|m| m.contains("Danish units")), "{danish:?}");
    for other in ["Denmark", "Dano-Norway"] {
        assert_eq!(said(other), danish, "{other}");
    }
    assert!(said("Danmark").iter().any(|m| m.contains("no nation 'Danmark'")));
}

#[test]
fn refusals_name_units_as_a_player_reads_them_in_checker_and_engine() {
    let (state, c) = build_for_destroyed_french_corps_2();
    assert!(
        c.diagnostics[0].message.contains("French corps 2 is not on the map"),
        "{:?}",
        c.diagnostics
    );
    let engine = refused_by_engine(&resolve(&state, PowerId::France, &c, 5));
    assert!(
        engine
            .iter()
            .any(|(_, why)| why.contains("French corps 2 is not on the map")),
        "{engine:?}"
    );
}

/// A state check the parser used to make, now made once by the legality
/// gate: the order parses, the gate refuses it with the specific `code`
/// (not the generic `illegal`), and the engine refuses it for the same
/// reason under the same rule section.
fn moved_to_the_gate(state: &State, power: PowerId, text: &str, code: &str, section: &str, reason: &str) {
    refused_by_the_gate_alone(state, power, text, code, reason);
    let c = check(state, power, text);
    assert!(
        c.diagnostics[0].message.ends_with(&format!("({section})")),
        "{:?}",
        c.diagnostics
    );
    let out = resolve(state, power, &c, 5);
    let o = out
        .iter()
        .find(|o| o.kind == Kind::OrderRejected)
        .expect("the engine refuses it");
    assert_eq!(o.rule.as_str(), section, "{o:?}");
}

/// The checker's one diagnostic for `text` (one line) has its caret
/// under `word` alone, the argument at fault, not under the whole order.
fn points_at(state: &State, power: PowerId, text: &str, word: &str) {
    let c = check(state, power, text);
    let at = text.find(word).unwrap_or_else(|| panic!("{word} not in {text}"));
    let want = (1, text[..at].chars().count() + 1, word.chars().count());
    let d = &c.diagnostics[0];
    assert_eq!((d.span.line, d.span.col, d.span.len), want, "{text}: {d:?}");
}

fn france(number: u32) -> empereur::state::UnitKey {
    empereur::state::UnitKey {
        kind: empereur::state::UnitKind::Corps,
        nation: empereur::ids::Nation::Major(PowerId::France),
        number,
    }
}

fn province_name(id: &str) -> String {
    scenario().map.province(id).unwrap().name.clone()
}

#[test]
fn a_unit_of_another_power_is_refused_by_the_gate_as_not_yours() {
    let state = state_at("1805-fall-france");
    refused_by_the_gate_alone(
        &state,
        PowerId::France,
        "MOVE Austrian corps 1 -> Bohemia",
        "not-your-unit",
        "France does not give the orders of Austrian corps 1",
    );
    points_at(
        &state,
        PowerId::France,
        "MOVE Austrian corps 1 -> Bohemia",
        "Austrian corps 1",
    );
    let c = check(&state, PowerId::France, "MOVE Austrian corps 1 -> Bohemia");
    assert_eq!(
        c.diagnostics[0].help.as_deref(),
        Some("you may order your own units and those of NPCs you run (3.31)")
    );
    moved_to_the_gate(
        &state,
        PowerId::France,
        "SAIL British squadron 2 -> North Sea",
        "not-your-unit",
        "3.31",
        "France does not give the orders of British squadron 2",
    );
    points_at(
        &state,
        PowerId::France,
        "SAIL British squadron 2 -> North Sea",
        "British squadron 2",
    );
}

#[test]
fn corps_apart_are_refused_by_the_gate_as_not_stacked() {
    let mut state = state_at("1805-fall-france");
    let paris = state.corps(&france(1).nation, 1).unwrap().location.clone().unwrap();
    let elsewhere = scenario().map.land_neighbours(&paris).next().unwrap().to_string();
    state.corps_mut(&france(2).nation, 2).unwrap().location = Some(elsewhere.clone());
    let to = province_name(&elsewhere);
    let text = format!("MOVE corps 1, corps 2 -> {to}");
    moved_to_the_gate(
        &state,
        PowerId::France,
        &text,
        "not-stacked",
        "5.5",
        &format!("French corps 2 is in {to}, not in {}", province_name(&paris)),
    );
    points_at(&state, PowerId::France, &text, "corps 2");
}

#[test]
fn a_commander_away_from_his_corps_is_refused_by_the_gate_as_not_there() {
    let mut state = state_at("1805-fall-france");
    let at = state.corps(&france(1).nation, 1).unwrap().location.clone().unwrap();
    let next = scenario().map.land_neighbours(&at).next().unwrap().to_string();
    let napoleon = state.commanders.iter_mut().find(|c| c.name == "Napoleon").unwrap();
    napoleon.location = Some(next.clone());
    state.corps_mut(&france(1).nation, 1).unwrap().location = Some(at.clone());
    let text = format!("MOVE corps 1 WITH Napoleon -> {}", province_name(&next));
    moved_to_the_gate(
        &state,
        PowerId::France,
        &text,
        "not-there",
        "2.24",
        &format!("Napoleon is not with the stack in {}", province_name(&at)),
    );
    points_at(&state, PowerId::France, &text, "Napoleon");
}

#[test]
fn a_sea_zone_the_squadron_cannot_reach_is_refused_by_the_gate_as_not_connected() {
    let state = state_at("1805-fall-france");
    moved_to_the_gate(
        &state,
        PowerId::France,
        "SAIL squadron 1 -> North Sea",
        "not-connected",
        "5.4",
        "North Sea cannot be reached from",
    );
    points_at(&state, PowerId::France, "SAIL squadron 1 -> North Sea", "North Sea");
}

#[test]
fn cargo_away_from_the_squadron_is_refused_by_the_gate_as_not_there() {
    let mut state = state_at("1805-fall-france");
    let sq = state.squadron(&france(1).nation, 1).unwrap();
    let empereur::state::Location::Port(port) = sq.location.clone() else {
        panic!("French squadron 1 starts in port")
    };
    let sea = scenario().map.province(&port).unwrap().seas[0].clone();
    let inland = scenario()
        .map
        .land_neighbours(&port)
        .find(|p| *p != port)
        .unwrap()
        .to_string();
    state.corps_mut(&france(1).nation, 1).unwrap().location = Some(inland);
    let sea_name = scenario().map.sea(&sea).unwrap().name.clone();
    let text = format!(
        "SAIL squadron 1 CARRYING corps 1 -> {sea_name} INTO {}",
        province_name(&port)
    );
    moved_to_the_gate(
        &state,
        PowerId::France,
        &text,
        "not-there",
        "5.4",
        &format!("French corps 1 is not in {} with the squadron", province_name(&port)),
    );
    points_at(&state, PowerId::France, &text, "corps 1");
}

#[test]
fn a_path_not_joined_to_the_stack_is_refused_by_the_gate_as_not_connected() {
    let state = state_at("1805-fall-france");
    moved_to_the_gate(
        &state,
        PowerId::France,
        "MOVE corps 1 -> Bavaria",
        "not-connected",
        "2.13",
        "Bavaria is not adjacent to Paris",
    );
    points_at(&state, PowerId::France, "MOVE corps 1 -> Bavaria", "Bavaria");
    let c = check(&state, PowerId::France, "MOVE corps 1 -> Bavaria");
    assert_eq!(
        c.diagnostics[0].help.as_deref(),
        Some("from Paris one can reach Brittany, Burgundy, Flanders, Gascony, Lorraine or Normandy")
    );
}

/// 12.2.8.3, 12.2.8.4: the gate runs the refit step's own check before
/// the step, so a refusal keeps its code and the argument at fault (the
/// step's outcome would give only `illegal` and the whole order).
#[test]
fn refit_and_convert_refusals_keep_their_code_and_point_at_the_word() {
    let mut state = state_at("1805-fall-build");
    state.options.insert("naval".into());
    let brest = scenario().map.resolve_province("Brest").unwrap().id.clone();
    // no hulks there: the count is at fault
    let refit = "REFIT 2 HULKS IN Brest";
    refused_by_the_gate_alone(&state, PowerId::France, refit, "illegal", "hulk(s)");
    points_at(&state, PowerId::France, refit, "2");
    // hulks there, but no Gold for them
    state.add_hulks(&brest, PowerId::France, 2);
    state.power_mut(PowerId::France).gold = 0;
    refused_by_the_gate_alone(&state, PowerId::France, refit, "cannot-pay", "the refit costs");
    // a squadron at sea puts no ships in ordinary
    let sea = scenario().map.province(&brest).unwrap().seas[0].clone();
    state.squadron_mut(&france(1).nation, 1).unwrap().location = empereur::state::Location::Sea(sea);
    let convert = "CONVERT 1 SHIPS OF squadron 1";
    refused_by_the_gate_alone(&state, PowerId::France, convert, "not-there", "must be in port");
    points_at(&state, PowerId::France, convert, "squadron 1");
}

/// 11.8.2.5: the political step's own check runs in the gate too: a
/// leader already at the highest rating is the word at fault.
#[test]
fn a_leader_that_cannot_be_improved_is_the_word_at_fault() {
    let mut state = state_at("1806-winter");
    state.options.insert("political".into());
    let cap = scenario().tables.political_dominance.leader_rating_max;
    let charles = state
        .commanders
        .iter_mut()
        .find(|c| c.name == "Archduke Charles")
        .unwrap();
    charles.rating = cap;
    let text = "IMPROVE Archduke Charles";
    refused_by_the_gate_alone(
        &state,
        PowerId::Austria,
        text,
        "illegal",
        "no leader is improved beyond",
    );
    points_at(&state, PowerId::Austria, text, "Archduke Charles");
}

/// The gate's own typed reasons point at their word too: the unit given
/// a second move (5.5), the count of squadrons the treasury cannot pay.
#[test]
fn a_second_move_and_unaffordable_squadrons_point_at_their_word() {
    let state = state_at("1805-fall-france");
    let c = check(
        &state,
        PowerId::France,
        "MOVE corps 1 -> Burgundy\nMOVE corps 1 -> Normandy",
    );
    let d = &c.diagnostics[0];
    assert_eq!(d.code, "already-ordered", "{d:?}");
    assert_eq!((d.span.line, d.span.col, d.span.len), (2, 6, 7), "{d:?}");
    let mut state = state_at("1805-fall-build");
    state.power_mut(PowerId::France).gold = 0;
    state.power_mut(PowerId::France).pool.squadrons = 5;
    let text = "BUILD 2 SQUADRONS IN Brest";
    let c = check(&state, PowerId::France, text);
    assert_eq!(c.diagnostics[0].code, "cannot-pay", "{:?}", c.diagnostics);
    points_at(&state, PowerId::France, text, "2");
}

/// 11.3.2.3 errata: without Hanover the Kingdom of Westphalia's treasury
/// pays nothing for the Hanover corps (Rhenish corps 1), so France with 1
/// Gold cannot pay for a Rhenish division built into it though the
/// kingdom holds 20: the gate's own reason is the Gold France lacks (the
/// engine's step alone would refuse it with no sum), and the engine
/// refuses the same order. The Hesse corps is still the kingdom's.
#[test]
fn westphalia_without_hanover_pays_nothing_for_the_hanover_corps() {
    use empereur::ids::Nation;
    use empereur::state::{Corps, Division, Garrison, Kingdom};
    let all: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut state = State::initial(scenario(), "legality", &all, ["political".to_string()].into());
    state.phase = "1806-fall-build".parse::<PhaseId>().unwrap();
    state.power_mut(PowerId::France).gold = 1;
    for (p, by) in [
        ("hanover", PowerId::Britain),
        ("hesse", PowerId::France),
        ("magdeburg", PowerId::France),
    ] {
        let ps = state.provinces.get_mut(p).unwrap();
        ps.controller = Some(Nation::Major(by));
        ps.garrison = Some(Garrison {
            nation: Nation::Major(by),
            held_by: None,
        });
    }
    let rhine = state.minors.get_mut("rhine").unwrap();
    rhine.controller = Some(PowerId::France);
    rhine.formed = true;
    state.political.kingdoms.insert(
        "westphalia".into(),
        Kingdom {
            controller: PowerId::France,
            components: ["hesse", "magdeburg"].map(String::from).into(),
            created: state.turn(),
            gold: 20,
            ceded: false,
        },
    );
    for n in [1, 2] {
        state.corps.push(Corps {
            nation: Nation::Minor("rhine".into()),
            number: n,
            location: Some("hesse".into()),
            divisions: vec![Division {
                arm: empereur::scenario::Arm::Infantry,
                nation: Nation::Minor("rhine".into()),
            }],
            arrives: None,
            held_by: None,
        });
    }
    let c = check(&state, PowerId::France, "BUILD Rhenish corps 1: 1 Rhenish inf");
    assert_eq!(c.diagnostics[0].code, "cannot-pay", "{:?}", c.diagnostics);
    assert_agree(&c, &resolve(&state, PowerId::France, &c, 5));
    let c = check(&state, PowerId::France, "BUILD Rhenish corps 2: 1 Rhenish inf");
    assert!(c.all_accepted(), "{:?}", c.diagnostics);
    assert_agree(&c, &resolve(&state, PowerId::France, &c, 5));
}

/// 11.9.1.1 (EiA option political): of the home provinces a peace offer
/// cedes, the caret goes under the one that would be the fourth lost.
#[test]
fn a_fourth_home_province_ceded_is_the_word_at_fault() {
    let mut state = state_at("1806-spring-austria");
    state.options.insert("political".into());
    state.relations.set_war(PowerId::France, PowerId::Austria, true);
    for p in ["bohemia", "moravia"] {
        state
            .dominance
            .ceded_home
            .entry(PowerId::Austria)
            .or_default()
            .insert(p.into());
        french_held(&mut state, p);
    }
    let text = "OFFER PEACE TO France CEDE Hungary, Transylvania";
    let c = check(&state, PowerId::Austria, text);
    assert!(
        c.diagnostics[0].message.contains("would make it 4"),
        "{:?}",
        c.diagnostics
    );
    points_at(&state, PowerId::Austria, text, "Transylvania");
}

/// 11.1.4: surrender terms that cede part of Poland point at the part.
#[test]
fn a_kingdom_ceded_in_part_points_at_the_part() {
    let mut state = state_at("1806-spring-france");
    state.options.insert("political".into());
    state.relations.set_war(PowerId::France, PowerId::Russia, true);
    for p in ["masovia", "west_galicia"] {
        french_held(&mut state, p);
    }
    let poland: empereur::state::political::Kingdom = toml::from_str(
        r#"controller = "france"
components = ["masovia", "west_galicia"]
created = { year = 1806, season = "winter" }
gold = 0"#,
    )
    .unwrap();
    state.political.kingdoms.insert("poland".into(), poland);
    let text = "SURRENDER TO Russia CEDE Flanders, Masovia";
    let c = check(&state, PowerId::France, text);
    assert!(
        c.diagnostics[0].message.contains("ceded only as a unit"),
        "{:?}",
        c.diagnostics
    );
    points_at(&state, PowerId::France, text, "Masovia");
}

/// Province `id` controlled and garrisoned by France.
fn french_held(state: &mut State, id: &str) {
    let france = empereur::ids::Nation::Major(PowerId::France);
    let ps = state.provinces.get_mut(id).unwrap();
    ps.controller = Some(france.clone());
    ps.garrison = Some(empereur::state::Garrison {
        nation: france,
        held_by: None,
    });
}

/// 5.4, 12.2.9.2: a SORTIE is a naval order of the Naval Phase, judged
/// with the SAILs in the order given, not after the land moves with the
/// Build Phase's refits and conversions (12.2.8.3-.4): a squadron in a
/// blockaded port ordered to SORTIE and then to SAIL is in port when its
/// SORTIE is judged, so the player is told the true reason it does not
/// cover, "it runs the blockade" (12.2.9.2), and the run is rolled.
#[test]
fn a_sortie_is_judged_with_the_sails_in_the_order_given() {
    use empereur::state::Location;
    let mut state = state_at("1805-fall-france");
    state.options.insert("naval".into());
    state.relations.set_war(PowerId::France, PowerId::Britain, true);
    let brest = scenario().map.resolve_province("Brest").unwrap().id.clone();
    let sea = scenario().map.province(&brest).unwrap().seas[0].clone();
    let sea_name = scenario().map.sea(&sea).unwrap().name.clone();
    let (fr, gb) = (
        empereur::ids::Nation::Major(PowerId::France),
        empereur::ids::Nation::Major(PowerId::Britain),
    );
    state.squadron_mut(&fr, 1).unwrap().location = Location::Port(brest.clone());
    let blockader = state.squadron_mut(&gb, 1).unwrap();
    blockader.location = Location::Sea(sea);
    blockader.blockading = Some(brest);
    let text = format!("SORTIE squadron 1\nSAIL squadron 1 -> {sea_name}");
    let c = check(&state, PowerId::France, &text);
    let accepted: Vec<&str> = c.accepted.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        accepted,
        [
            "SORTIE French squadron 1".to_string(),
            format!("SAIL French squadron 1 -> {sea_name}")
        ],
        "{:?}",
        c.diagnostics
    );
    // every die 1: the runner slips through (12.2.9.1)
    let out = resolve(&state, PowerId::France, &c, 1);
    let failed = refused_by_engine(&out);
    assert_eq!(
        failed,
        [(
            "SORTIE French squadron 1".to_string(),
            "French squadron 1 sails this phase: it runs the blockade and cannot also cover".to_string()
        )],
        "{out:?}"
    );
    assert!(
        out.iter()
            .any(|o| o.kind == Kind::BlockadeRun && o.summary.contains("slips through")),
        "{out:?}"
    );
}

/// 5.1, 3.31: Austria accepts France's peace, and Prussia, Austria's
/// Allied NPC, makes peace with France with it. France's march into a
/// Prussian province was legal when the phase opened and now fails; its
/// outcome names both peaces (Prussia's is not France's own outcome, but
/// France sees it) and not the march of France's corps 2 before it, which
/// was certain.
#[test]
fn a_march_a_peace_stopped_names_every_peace_france_sees_and_nothing_certain() {
    let mut state = state_at("1805-fall-france");
    state.relations.set_war(PowerId::France, PowerId::Austria, true);
    state.relations.set_war(PowerId::France, PowerId::Prussia, true);
    state.relations.set_alliance(PowerId::Austria, PowerId::Prussia, true);
    state.power_mut(PowerId::Prussia).control = empereur::state::Control::Allied { with: PowerId::Austria };
    let held_by = |state: &State, id: &str, p: PowerId| {
        state
            .provinces
            .get(id)
            .and_then(|s| s.controller.as_ref())
            .is_some_and(|n| n.major() == Some(p))
    };
    let (from, into) = scenario()
        .map
        .provinces
        .iter()
        .filter(|p| held_by(&state, &p.id, PowerId::Prussia))
        .find_map(|p| {
            scenario()
                .map
                .land_neighbours(&p.id)
                .find(|n| !held_by(&state, n, PowerId::Prussia) && state.corps_in(n).next().is_none())
                .map(|n| (n.to_string(), p.id.clone()))
        })
        .expect("a Prussian province with a foreign neighbour");
    let france = empereur::ids::Nation::Major(PowerId::France);
    state.corps_mut(&france, 1).unwrap().location = Some(from);
    let at = state.corps(&france, 2).unwrap().location.clone().unwrap();
    let step = scenario()
        .map
        .land_neighbours(&at)
        .find(|n| held_by(&state, n, PowerId::France))
        .unwrap()
        .to_string();
    let name = |id: &str| scenario().map.province(id).unwrap().name.clone();
    let march = format!("MOVE corps 1 -> {}", name(&into));
    let text = format!("OFFER PEACE TO Austria\nMOVE corps 2 -> {}\n{march}", name(&step));
    let c = check(&state, PowerId::France, &text);
    assert!(c.all_accepted(), "{:?}", c.diagnostics);
    let answer = check(&state, PowerId::Austria, "ACCEPT PEACE FROM France");
    assert!(answer.all_accepted(), "{:?}", answer.diagnostics);
    let orders: PhaseOrders = [
        (PowerId::France, c.accepted.clone()),
        (PowerId::Austria, answer.accepted.clone()),
    ]
    .into();
    let mut dice = ScriptedDice::new(BTreeMap::new(), Some(5));
    let out = rules::resolve(scenario(), &state, &orders, &mut dice).unwrap().outcomes;
    let march = &c.accepted[2].text;
    let failed = out
        .iter()
        .find(|o| o.order.as_deref() == Some(march.as_str()))
        .unwrap_or_else(|| panic!("{march}: no outcome in {out:?}"));
    assert_eq!(failed.kind, Kind::OrderFailed, "{failed:?}");
    assert_eq!(
        failed.why.last().map(|w| w.to_string()).as_deref(),
        Some(
            "legal when the phase opened; changed since by: France and Austria make peace; France and Prussia make peace"
        ),
        "{failed:?}"
    );
}

/// A refusal for the wrong phase lists what the phase takes as the
/// orders are written: with the naval option on, a Player Turn takes
/// SORTIE and RAID (12.2.6), named so.
#[test]
fn a_wrong_phase_refusal_names_the_naval_orders_as_written() {
    let mut state = state_at("1805-fall-france");
    state.options.insert("naval".to_string());
    let c = check(&state, PowerId::France, "BUY VP WITH 8 GOLD");
    assert_eq!(c.diagnostics[0].code, "wrong-phase", "{:?}", c.diagnostics);
    let m = &c.diagnostics[0].message;
    for written in ["SORTIE", "RAID", "BLOCKADE"] {
        assert!(m.contains(written), "{written} missing: {m}");
    }
    assert!(!m.contains("sortie") && !m.contains("raid,"), "{m}");
}
