//! Full-calendar tests: Fall 1805 to Fall 1815, seeded, with invariants
//! checked after every phase (rules::audit: Gold and VP changes explained
//! by outcomes, no negative treasury; every unit somewhere legal).

use empereur::autoplay::{self, SeededDice};
use empereur::ids::{PowerId, Step};
use empereur::rules::{self, PhaseOrders};
use empereur::scenario::Scenario;
use empereur::state::State;
use std::collections::BTreeSet;

fn start(players: &[PowerId]) -> (Scenario, State) {
    let s = Scenario::embedded("1805").expect("scenario loads");
    let st = State::initial(
        &s,
        "campaign",
        &players.iter().copied().collect::<BTreeSet<_>>(),
        BTreeSet::new(),
    );
    (s, st)
}

/// Play until the game ends; `orders` gives each phase's orders. Returns
/// the final state and the number of distinct turns seen.
fn play(
    s: &Scenario,
    mut st: State,
    seed: u64,
    mut orders: impl FnMut(&Scenario, &State, u64) -> PhaseOrders,
) -> (State, usize) {
    let mut turns = BTreeSet::new();
    for i in 0..2000u64 {
        if st.over.is_some() {
            break;
        }
        turns.insert(st.turn());
        let o = orders(s, &st, i);
        let mut dice = SeededDice::new(seed ^ (i << 20));
        let r = rules::resolve(s, &st, &o, &mut dice).unwrap_or_else(|e| panic!("phase {}: {e}", st.phase));
        if let Err(e) = rules::audit(&st, &r.state, &r.outcomes) {
            panic!("phase {}: {e}", st.phase);
        }
        if let Err(e) = r.state.check_against(s) {
            panic!("phase {}: state invalid: {e:?}", st.phase);
        }
        // Purposes are unique within a phase (the dice would refuse).
        assert!(
            r.state.phase != st.phase || r.state.over.is_some(),
            "phase {} did not advance",
            st.phase
        );
        st = r.state;
    }
    (st, turns.len())
}

#[test]
fn nobody_orders_the_game_runs_41_turns() {
    let (mut s, st) = start(&[PowerId::France, PowerId::Britain, PowerId::Russia, PowerId::Austria]);
    // Goals out of reach, so no immediate victory (7.1) cuts the calendar short.
    for spec in s.powers.values_mut() {
        spec.vp_goal = 1_000_000;
    }
    let (end, turns) = play(&s, st, 1, |_, _, _| PhaseOrders::new());
    assert_eq!(turns, 41);
    assert_eq!(end.phase.to_string(), "1815-fall-build");
    // 1.1: after the last turn the best percentage is named (or a draw).
    assert!(end.over.is_some());
}

#[test]
fn nobody_orders_with_the_real_goals_the_game_still_ends() {
    let (s, st) = start(&PowerId::ALL);
    let (end, turns) = play(&s, st, 2, |_, _, _| PhaseOrders::new());
    assert!(end.over.is_some());
    assert!((1..=41).contains(&turns));
}

#[test]
fn generated_orders_keep_every_invariant() {
    for seed in crate::seeds(&[3u64, 11, 29], 1) {
        let (s, st) = start(&PowerId::ALL);
        let (end, turns) = play(&s, st, seed, |s, st, i| {
            let mut o = PhaseOrders::new();
            for p in rules::roles(s, st).may {
                let lines = autoplay::political::generate(s, st, p, seed.wrapping_mul(1000).wrapping_add(i));
                if !lines.is_empty() {
                    o.insert(p, lines);
                }
            }
            o
        });
        assert!(end.over.is_some(), "seed {seed}: game did not end");
        assert!(turns <= 41);
        if end.phase.step != Step::Build || end.phase.to_string() != "1815-fall-build" {
            // An immediate victory ended it early: a winner is named.
            assert!(
                PowerId::ALL.iter().any(|p| end.over.as_deref() == Some(p.id())) || end.over.as_deref() == Some("draw")
            );
        }
    }
}

/// The whole 1805–1815 calendar on the real map with everything the
/// generator orders (political, builds, moves, battles, sieges, naval):
/// the audit, the state's own checks and 4.21 control (rules::war::control)
/// hold after every phase.
#[test]
fn a_full_generated_war_on_the_real_map_keeps_every_invariant() {
    let (mut s, st) = start(&PowerId::ALL);
    for spec in s.powers.values_mut() {
        spec.vp_goal = 1_000_000; // play every turn
    }
    let mut fights = 0usize;
    let (end, turns) = play(&s, st, 7, |s, st, i| {
        let bad = rules::war::control::check(s, st);
        assert!(bad.is_empty(), "phase {}: {bad:?}", st.phase);
        let mut o = PhaseOrders::new();
        let roles = rules::roles(s, st);
        for p in roles.must.iter().chain(roles.may.iter()) {
            let lines = empereur::ops::autoplay::generate(s, st, *p, 7_000 + i);
            fights += lines
                .iter()
                .filter(|l| matches!(l.order, empereur::orders::ast::Order::Move { .. }))
                .count();
            if !lines.is_empty() {
                o.insert(*p, lines);
            }
        }
        o
    });
    assert_eq!(turns, 41);
    assert!(end.over.is_some());
    assert!(fights > 100, "the generator moved armies only {fights} times");
}

/// A phase must always resolve. Autoplayed campaigns
/// with random policies (each power active or passive, random orders)
/// never ask the dice for the same purpose twice in a phase and never
/// reach a phase the engine refuses. A modest count here keeps `cargo
/// test` quick; `empereur balance --policy mixed --campaigns 1000` runs
/// the full property (docs/balance.md).
#[test]
fn autoplayed_campaigns_never_repeat_a_purpose_or_stall() {
    use empereur::autoplay::balance::{self, Policy};
    let s = Scenario::embedded("1805").expect("scenario loads");
    for seed in crate::seeds(&[1u64, 2, 3, 4, 5], 2) {
        for policy in [Policy::Mixed, Policy::Active] {
            let c = balance::play(&s, policy, seed, 2_000);
            assert_eq!(c.stuck, None, "seed {seed}, policy {policy:?}");
            assert!(c.phases > 0);
        }
    }
}
