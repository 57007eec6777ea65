//! The whole 1805–1815 calendar with the EiA naval option (`--option
//! naval`): generated orders (the option's SORTIE, RAID and standing
//! chits among them) on the real map, every invariant after every phase;
//! and the same kind of campaign autoplayed on disk, then verified by
//! replaying every phase.
#![allow(clippy::disallowed_methods)] // tests use files freely

use empereur::autoplay::SeededDice;
use empereur::ids::PowerId;
use empereur::orders::ast::{NavalOrder, Order, Standing};
use empereur::rules::{self, Kind, PhaseOrders};
use empereur::scenario::Scenario;
use empereur::state::{Location, State};
use std::collections::BTreeSet;

#[test]
fn a_generated_war_with_the_naval_option_keeps_every_invariant_for_41_turns() {
    let mut s = Scenario::embedded("1805").expect("scenario loads");
    for spec in s.powers.values_mut() {
        spec.vp_goal = 1_000_000; // play every turn
    }
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut st = State::initial(&s, "campaign-naval", &players, ["naval".to_string()].into());
    st.options.insert("naval".into());
    let mut turns = BTreeSet::new();
    let (mut open_sea, mut tactics, mut option_orders, mut chits) = (0, 0, 0, 0);
    let (mut hulk_orders, mut off_board) = (0, 0);
    // 12.2.6.1.7-.9.1, 12.2.7.3, 12.2.9.3: the choices set by standing
    // order, and the battles in which one decided
    let (mut choices, mut decided) = (0, BTreeSet::new());
    for i in 0..2000u64 {
        if st.over.is_some() {
            break;
        }
        turns.insert(st.turn());
        let bad = rules::war::control::check(&s, &st);
        assert!(bad.is_empty(), "phase {}: {bad:?}", st.phase);
        let mut o = PhaseOrders::new();
        let roles = rules::roles(&s, &st);
        for p in roles.must.iter().chain(roles.may.iter()) {
            let lines = empereur::ops::autoplay::generate(&s, &st, *p, 9_000 + i);
            option_orders += lines
                .iter()
                .filter(|l| {
                    matches!(
                        l.order,
                        Order::Naval(NavalOrder::Sortie { .. } | NavalOrder::Raid { .. })
                    )
                })
                .count();
            hulk_orders += lines
                .iter()
                .filter(|l| {
                    matches!(
                        l.order,
                        Order::Naval(NavalOrder::Refit { .. } | NavalOrder::Convert { .. })
                    )
                })
                .count();
            chits += lines
                .iter()
                .filter(|l| matches!(l.order, Order::Standing(Standing::NavalTactic { .. })))
                .count();
            choices += lines
                .iter()
                .filter(|l| {
                    matches!(
                        l.order,
                        Order::Standing(
                            Standing::NavalChase { .. }
                                | Standing::NavalAfter { .. }
                                | Standing::NavalEvade { .. }
                                | Standing::DisabledTo { .. }
                                | Standing::PortAccess { .. }
                        )
                    )
                })
                .count();
            if !lines.is_empty() {
                o.insert(*p, lines);
            }
        }
        let mut dice = SeededDice::new(41 ^ (i << 20));
        let r = rules::resolve(&s, &st, &o, &mut dice).unwrap_or_else(|e| panic!("phase {}: {e}", st.phase));
        if let Err(e) = rules::audit(&st, &r.state, &r.outcomes) {
            panic!("phase {}: {e}", st.phase);
        }
        if let Err(e) = r.state.check_against(&s) {
            panic!("phase {}: state invalid: {e:?}", st.phase);
        }
        for out in &r.outcomes {
            // the rules engine refuses nothing the generator proposed
            assert_ne!(out.kind, Kind::OrderRejected, "phase {}: {out:?}", st.phase);
            if out.kind == Kind::NavalBattle && out.rule == "12.2.6.1" {
                open_sea += 1;
            }
            if out.kind == Kind::NavalTactic && out.rule != "12.2.6.1.1" && out.rule != "12.2.6.1.4.2" {
                decided.insert(out.rule.clone());
            }
            if out.kind == Kind::NavalTactic {
                tactics += 1;
                // a power's chit note goes to it (and whoever orders it) only
                assert!(
                    !matches!(out.visibility, rules::Visibility::All),
                    "a chit choice is public: {out:?}"
                );
            }
        }
        assert!(r.state.phase != st.phase || r.state.over.is_some());
        off_board += r
            .state
            .squadrons
            .iter()
            .filter(|q| matches!(&q.location, Location::Sea(z) if s.map.off_board(z).is_some()))
            .count();
        st = r.state;
    }
    assert_eq!(turns.len(), 41);
    assert!(st.over.is_some());
    assert!(option_orders > 0, "the generator gave no SORTIE or RAID");
    assert!(hulk_orders > 0, "the generator gave no REFIT or CONVERT (12.2.8.3-4)");
    assert!(off_board > 0, "no squadron went off the board (12.2.7.1)");
    assert!(chits > 10, "the generator set only {chits} standing chits");
    assert!(choices > 10, "the generator set only {choices} standing naval choices");
    assert!(
        decided.len() >= 2,
        "standing naval choices decided only {decided:?} in a whole war"
    );
    assert!(open_sea > 0, "no open sea combat in a whole war");
    // each open sea combat tells each side's power its chit (an
    // uncontrolled minor's fleet has nobody to tell)
    assert!(
        tactics >= open_sea,
        "{tactics} chit notes for {open_sea} open sea combats"
    );
}

#[test]
fn an_autoplayed_naval_campaign_verifies_by_replay() {
    use empereur::ops::autoplay::autoplay;
    use empereur::ops::demo::DEMO_PLAYERS;
    use empereur::ops::new::{NewOptions, create_from};
    use empereur::ops::verify::{VerifyOptions, verify_game};
    use empereur::store::{self, GameDir};
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    let players = store::players::parse("players.toml", DEMO_PLAYERS).unwrap();
    create_from(
        &NewOptions {
            dir: root.clone(),
            scenario: "1805".into(),
            players: Default::default(),
            options: vec!["naval".into()],
            id: Some("naval".into()),
            house_seating: true,
        },
        players,
    )
    .unwrap();
    let dir = GameDir::new(&root);
    let s = autoplay(&dir, 2000, 5, Some("2026-01-05T10:00:00Z")).unwrap();
    assert!(s.over.is_some(), "the campaign ran to its end");
    let report = verify_game(
        &dir,
        &VerifyOptions {
            replay: true,
            entries: vec![],
        },
    )
    .unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert!(report.replayed > 100, "only {} phases replayed", report.replayed);
}
