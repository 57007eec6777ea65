//! Rules II (military) tests beyond the rule cases: invariants over many
//! generated turns on the small test map `tests/fixtures/war/` (with the
//! shipped 1805 tables), views, and the FAQ98 option columns. The
//! military rule cases (`tests/war_cases/`) run in the one rule-case
//! harness, `tests/it/rules_cases.rs`.
#![allow(clippy::disallowed_methods)] // test harness reads case files

use empereur::autoplay::SeededDice;
use empereur::ids::{Nation, PowerId};
use empereur::rules::Kind;
use empereur::rules::war;
use empereur::scenario::{Arm, Scenario};
use empereur::state::{Location, StandingOrders, State};
use std::collections::{BTreeMap, BTreeSet};

use crate::case_harness::fixture;

// ---------------------------------------------------------------- dice

// The deterministic dice of `testing` and `autoplay`: scripted values by
// purpose (with a default), or seeded; a purpose asked twice is an error.

// ------------------------------------------------------------ fixtures

pub fn initial(s: &Scenario) -> State {
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    State::initial(s, "test", &players, BTreeSet::new())
}

// ------------------------------------------------------------ unit-ish

#[test]
fn faq98_a_rating_2_leader_rolling_3_may_choose_from_lower_columns() {
    let s = fixture();
    let got = war::battle::available(&s.tables.battle, "offensive", 2, 3);
    assert_eq!(got, vec!["probe", "cavalry_charge", "grand_assault", "combined_arms"]);
    // a rating 0 leader only has his own column
    assert_eq!(
        war::battle::available(&s.tables.battle, "offensive", 0, 3),
        vec!["probe"]
    );
}

#[test]
fn the_fixture_starts_with_consistent_control() {
    let s = fixture();
    let st = initial(&s);
    assert_eq!(war::control::check(&s, &st), Vec::<String>::new());
}

/// 11.1.2: a kingdom's minor garrison holds its province for the power it
/// garrisons for (`held_by`), not for its own nation: the control check
/// finds Masovia sound while France holds it with a Polish garrison kept
/// for France, and unsound once Russia is its controller.
#[test]
fn a_kingdoms_garrison_holds_its_province_for_the_power_it_garrisons_for() {
    use empereur::state::Garrison;
    let s = Scenario::embedded("1805").unwrap();
    let mut st = initial(&s);
    let polish = Garrison {
        nation: Nation::Minor("poland".into()),
        held_by: Some(PowerId::France),
    };
    let masovia = st.provinces.get_mut("masovia").unwrap();
    masovia.controller = Some(Nation::Major(PowerId::France));
    masovia.garrison = Some(polish);
    let about = |st: &State| -> Vec<String> {
        war::control::check(&s, st)
            .into_iter()
            .filter(|b| b.starts_with("masovia:"))
            .collect()
    };
    assert_eq!(about(&st), Vec::<String>::new());
    st.provinces.get_mut("masovia").unwrap().controller = Some(Nation::Major(PowerId::Russia));
    assert_eq!(
        about(&st),
        vec!["masovia: garrison of poland but controlled by Some(Major(Russia))".to_string()]
    );
}

// ------------------------------------------------------------ invariants

fn division_totals(state: &State) -> BTreeMap<(String, Arm), u64> {
    let mut t: BTreeMap<(String, Arm), u64> = BTreeMap::new();
    for c in &state.corps {
        for d in &c.divisions {
            *t.entry((d.nation.to_string(), d.arm)).or_default() += 1;
        }
    }
    for ps in state.provinces.values() {
        if let Some(g) = &ps.garrison {
            *t.entry((g.nation.to_string(), Arm::Infantry)).or_default() += 1;
        }
    }
    for (p, ps) in &state.powers {
        for arm in [Arm::Infantry, Arm::Cavalry, Arm::Artillery] {
            *t.entry((p.to_string(), arm)).or_default() += ps.pool.of(arm) as u64;
        }
    }
    for (m, ms) in &state.minors {
        for arm in [Arm::Infantry, Arm::Cavalry, Arm::Artillery] {
            *t.entry((m.clone(), arm)).or_default() += ms.pool.of(arm) as u64;
        }
    }
    t
}

fn squadron_totals(state: &State) -> BTreeMap<String, u64> {
    let mut t: BTreeMap<String, u64> = BTreeMap::new();
    for s in &state.squadrons {
        *t.entry(s.nation.to_string()).or_default() += 1;
    }
    for (p, ps) in &state.powers {
        *t.entry(p.to_string()).or_default() += ps.pool.squadrons as u64;
    }
    for (m, ms) in &state.minors {
        *t.entry(m.clone()).or_default() += ms.pool.squadrons as u64;
    }
    t
}

fn invariants(
    s: &Scenario,
    state: &State,
    divs: &BTreeMap<(String, Arm), u64>,
    sq: &BTreeMap<String, u64>,
    when: &str,
) {
    // every division in exactly one place: totals per nation and arm are
    // conserved between the mats, the garrisons and the pools (2.51)
    assert_eq!(&division_totals(state), divs, "{when}: divisions not conserved");
    assert_eq!(&squadron_totals(state), sq, "{when}: squadrons not conserved");
    // control consistent with garrisons (2.23, 4.21)
    assert_eq!(war::control::check(s, state), Vec::<String>::new(), "{when}: control");
    // no unit in an illegal place
    let mut seen = BTreeSet::new();
    for c in &state.corps {
        assert!(seen.insert(c.key()), "{when}: {} twice", c.key());
        if let Some(l) = &c.location {
            assert!(s.map.province(l).is_some(), "{when}: {} in '{l}'", c.key());
        }
        assert!(c.divisions.len() <= c.capacity(), "{when}: {} over capacity", c.key());
    }
    for q in &state.squadrons {
        let ok = match &q.location {
            Location::Port(p) => s.map.province(p).is_some_and(|x| x.port),
            Location::Sea(z) => s.map.sea(z).is_some(),
        };
        assert!(ok, "{when}: squadron {} at {:?}", q.number, q.location);
    }
}

#[test]
fn generated_campaigns_keep_the_invariants() {
    let s = fixture();
    let wars = [
        [PowerId::France, PowerId::Austria],
        [PowerId::France, PowerId::Prussia],
        [PowerId::Britain, PowerId::France],
        [PowerId::Russia, PowerId::Prussia],
        [PowerId::Austria, PowerId::Prussia],
        [PowerId::Ottoman, PowerId::Austria],
    ];
    let (mut battles, mut sieges, mut surrenders) = (0, 0, 0);
    for seed in 0..4u64 {
        let mut state = initial(&s);
        // a different set of wars per seed, so that armies meet
        for (i, [a, b]) in wars.iter().enumerate() {
            if !(i as u64 + seed).is_multiple_of(3) {
                state.relations.set_war(*a, *b, true);
            }
        }
        let (b, g, r) = campaign(&s, &mut state, seed);
        battles += b;
        sieges += g;
        surrenders += r;
    }
    assert!(battles > 0, "no battle in the generated campaigns");
    assert!(sieges > 0, "no siege in the generated campaigns");
    // the seeds are fixed, so this also proves surrenders were exercised
    assert!(surrenders > 0, "no surrender in the generated campaigns");
}

/// 1805–1815 (41 turns) of generated orders; returns (battles, sieges,
/// surrenders). The capital-held count and forced surrenders stand in
/// for rules I's sequence of play.
fn campaign(s: &Scenario, state: &mut State, seed: u64) -> (usize, usize, usize) {
    let divs = division_totals(state);
    let sq = squadron_totals(state);
    let mut battles = 0;
    let mut sieges = 0;
    let mut surrenders = 0;
    for turn in 1..=41u64 {
        {
            for p in PowerId::ALL {
                let state = &mut *state;
                let mut dice = SeededDice::new(seed * 1_000_003 + turn * 31 + p as u64);
                state.phase.step = empereur::ids::Step::PlayerTurn(p);
                let orders = empereur::autoplay::war::generate(s, state, p, seed * 7919 + turn * 7 + p as u64);
                for l in &orders {
                    assert_eq!(
                        war::check_order(s, state, p, &l.order),
                        Ok(()),
                        "generated order '{}' is not legal",
                        l.text
                    );
                }
                let mut out = Vec::new();
                war::naval_phase(s, state, p, &orders, &mut dice, &mut out).expect("naval phase");
                invariants(s, state, &divs, &sq, &format!("seed {seed} turn {turn} {p} naval"));
                war::land_phase(s, state, p, &orders, &mut dice, &mut out).expect("land phase");
                invariants(s, state, &divs, &sq, &format!("seed {seed} turn {turn} {p} land"));
                battles += out.iter().filter(|o| o.kind == Kind::Battle).count();
                sieges += out.iter().filter(|o| o.kind == Kind::Siege).count();
            }
            // 4.213 count and the forced surrender (5.12) at the Peace Step
            for p in PowerId::ALL {
                let cap = s.powers[&p].capital.clone();
                let held = state.provinces[&cap].controller != Some(Nation::Major(p));
                let ps = state.power_mut(p);
                ps.capital_lost_turns = if held { ps.capital_lost_turns + 1 } else { 0 };
                if let Some(v) = war::surrender::due(s, state, p) {
                    let terms = war::surrender::default_terms(s);
                    war::surrender::surrender(s, state, p, v, &terms);
                    surrenders += 1;
                    invariants(s, state, &divs, &sq, &format!("seed {seed} turn {turn} {p} surrenders"));
                    assert!(!state.relations.at_war(p, v), "peace after the surrender");
                    assert!(war::surrender::declaration_barred(state, p, v).is_some());
                }
            }
        }
    }
    (battles, sieges, surrenders)
}

#[test]
fn a_power_sees_foreign_corps_positions_but_not_their_divisions_nor_standing_orders() {
    let s = fixture();
    let mut st = initial(&s);
    st.standing.insert(
        PowerId::Austria,
        StandingOrders {
            withdraw_ratio: Some(2),
            ..Default::default()
        },
    );
    st.standing.insert(PowerId::France, StandingOrders::default());
    let v = st.view_for(PowerId::France);
    let a = v.corps(&Nation::Major(PowerId::Austria), 1).expect("austrian corps");
    assert_eq!(a.location.as_deref(), Some("vienna"));
    assert!(a.divisions.is_empty());
    assert!(!v.standing.contains_key(&PowerId::Austria));
    assert!(v.standing.contains_key(&PowerId::France));
    assert_eq!(
        v.corps(&Nation::Major(PowerId::France), 1).map(|c| c.divisions.len()),
        Some(3)
    );
}
