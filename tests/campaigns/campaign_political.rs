#![allow(clippy::disallowed_methods)] // test adapter: writes the players file, reads the state file
//! Full-calendar campaigns with the EiA political option (11.x), alone
//! and with the naval option (12.2.x): every phase of Fall 1805 to Fall
//! 1815 resolves with the generator's orders (kingdoms declared whenever
//! legal), and after every phase the Gold and VP audit, the state's own
//! checks, 4.21 control and the kingdoms' invariant hold: every part of a
//! kingdom is controlled by its controller.

use empereur::autoplay::SeededDice;
use empereur::ids::{Nation, PowerId};
use empereur::rules::{self, Kind, PhaseOrders};
use empereur::scenario::Scenario;
use empereur::scenario::tables_political::CounterKind;
use empereur::state::{Garrison, State};
use std::collections::BTreeSet;

/// Every part of every kingdom is held by the kingdom's controller.
fn kingdoms_sound(s: &Scenario, st: &State) -> Vec<String> {
    let mut bad = Vec::new();
    for (id, k) in &st.political.kingdoms {
        for c in &k.components {
            let h = rules::political::kingdoms::holder(s, st, c);
            if h != Some(k.controller) {
                bad.push(format!("{id}: {c} held by {h:?}, not {}", k.controller));
            }
        }
        if k.gold < 0 {
            bad.push(format!("{id}: treasury {}", k.gold));
        }
    }
    bad
}

/// Garrison `provinces` for `power` (as a conquest would have).
fn garrison(st: &mut State, power: PowerId, provinces: &[&str]) {
    for p in provinces {
        let ps = st.provinces.get_mut(*p).expect("province");
        ps.controller = Some(Nation::Major(power));
        ps.garrison = Some(Garrison::of(Nation::Major(power)));
    }
}

/// What a campaign did with the option: kingdoms declared, and which
/// kingdom counters (11.2.2.1, 11.2.2.2, 11.3.2.1) were ever on the map.
struct Played {
    created: usize,
    counters_on_map: BTreeSet<String>,
}

/// The kingdoms' own counters on the map now, by unit name.
fn counters_on_map(s: &Scenario, st: &State) -> BTreeSet<String> {
    let mut on = BTreeSet::new();
    for r in s.tables.political.kingdoms.iter().flat_map(|k| &k.counters) {
        let n = Nation::Minor(r.nation.clone());
        let corps = st.corps(&n, r.number).is_some_and(|c| c.location.is_some());
        let fleet = r.kind == CounterKind::Squadron && st.squadron(&n, r.number).is_some();
        if (r.kind == CounterKind::Corps && corps) || fleet {
            on.insert(format!("{} {:?} {}", r.nation, r.kind, r.number));
        }
    }
    on
}

/// Play the whole calendar; returns what the option did.
/// `primed`: the start has Prussia holding Hanover and Hesse, France the
/// four parts of Italy and Austria West Galicia's neighbour Masovia, so
/// the generator has kingdoms to declare at the first Winterphase.
fn campaign(options: &[&str], seed: u64, primed: bool) -> Played {
    let mut s = Scenario::embedded("1805").expect("scenario loads");
    for spec in s.powers.values_mut() {
        spec.vp_goal = 1_000_000; // play every turn
    }
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut st = State::initial(
        &s,
        "political",
        &players,
        options.iter().map(|o| o.to_string()).collect(),
    );
    if primed {
        garrison(&mut st, PowerId::Prussia, &["hanover", "hesse"]);
        garrison(&mut st, PowerId::France, &["lombardy", "venetia", "papacy", "illyria"]);
        garrison(&mut st, PowerId::Austria, &["masovia"]);
    }
    let (mut turns, mut created, mut counters) = (BTreeSet::new(), 0, BTreeSet::new());
    for i in 0..3000u64 {
        if st.over.is_some() {
            break;
        }
        turns.insert(st.turn());
        let mut o = PhaseOrders::new();
        let roles = rules::roles(&s, &st);
        for p in roles.must.iter().chain(roles.may.iter()) {
            let lines = empereur::ops::autoplay::generate(&s, &st, *p, seed * 10_000 + i);
            if !lines.is_empty() {
                o.insert(*p, lines);
            }
        }
        let mut dice = SeededDice::new(seed ^ (i << 20));
        let r = rules::resolve(&s, &st, &o, &mut dice).unwrap_or_else(|e| panic!("phase {}: {e}", st.phase));
        if let Err(e) = rules::audit(&st, &r.state, &r.outcomes) {
            panic!("phase {}: {e}", st.phase);
        }
        if let Err(e) = r.state.check_against(&s) {
            panic!("phase {}: state invalid: {e:?}", st.phase);
        }
        let bad = rules::war::control::check(&s, &r.state);
        assert!(bad.is_empty(), "phase {}: {bad:?}", st.phase);
        let bad = kingdoms_sound(&s, &r.state);
        assert!(bad.is_empty(), "phase {}: {bad:?}", st.phase);
        // nothing the option keeps shows up without it
        if !options.contains(&"political") {
            assert!(r.state.political.is_empty(), "phase {}", st.phase);
        }
        created += r.outcomes.iter().filter(|o| o.kind == Kind::KingdomCreated).count();
        counters.extend(counters_on_map(&s, &r.state));
        // the state file round-trips with the kingdoms in it
        let back = State::from_toml(&r.state.to_toml()).expect("state reloads");
        assert_eq!(back, r.state, "phase {}", st.phase);
        st = r.state;
    }
    assert_eq!(turns.len(), 41, "{options:?}");
    assert!(st.over.is_some());
    Played {
        created,
        counters_on_map: counters,
    }
}

#[test]
fn a_political_campaign_keeps_every_invariant() {
    let created = campaign(&["political"], 5, false).created;
    println!("kingdoms declared: {created}");
}

#[test]
fn a_naval_and_political_campaign_keeps_every_invariant() {
    let created = campaign(&["naval", "political"], 8, false).created;
    println!("kingdoms declared: {created}");
}

/// The generator declares the kingdoms that are legal (Westphalia for
/// Prussia, Italy for France, Poland for Austria) and the campaign goes
/// on with them in play, both options on: the Venetia fleet comes with
/// Italy (11.2.2.2) and the generator builds the kingdoms' own corps onto
/// the map (11.2.2.1, 11.3.2.1).
#[test]
fn autoplay_declares_kingdoms_and_the_campaign_keeps_every_invariant() {
    let played = campaign(&["naval", "political"], 13, true);
    assert!(played.created >= 3, "only {} kingdom(s) declared", played.created);
    let on = &played.counters_on_map;
    assert!(on.contains("italy Squadron 1"), "{on:?}");
    assert!(
        on.iter().any(|c| c.contains("Corps")),
        "no kingdom corps built onto the map: {on:?}"
    );
}

/// Without the option nothing political happens on the same start.
#[test]
fn without_the_option_no_kingdom_appears() {
    let played = campaign(&["naval"], 13, true);
    assert_eq!(played.created, 0);
    assert!(played.counters_on_map.is_empty(), "{:?}", played.counters_on_map);
}

/// France and Great Britain played (3.0), the rest NPCs.
const PLAYERS: &str = include_str!("../fixtures/players/france_britain.toml");

/// By the binary: a game made with both options is autoplayed to the end
/// of the calendar (41 turns), and `verify --replay` re-adjudicates every
/// phase and finds the same states.
#[test]
fn a_campaign_with_both_options_autoplays_to_the_end_and_verifies() {
    use assert_cmd::Command;
    let dir = tempfile::tempdir().unwrap();
    let players = dir.path().join("players.toml");
    std::fs::write(&players, PLAYERS).unwrap();
    let game = dir.path().join("g");
    let g = game.to_str().unwrap();
    let run = |args: &[&str]| {
        let out = Command::cargo_bin("empereur")
            .unwrap()
            .env("EMPEREUR_NOW", "2026-11-30T10:00:00Z")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    run(&[
        "new",
        g,
        "--players",
        players.to_str().unwrap(),
        "--option",
        "naval",
        "--option",
        "political",
    ]);
    run(&["autoplay", "-g", g, "--phases", "400", "--seed", "3"]);
    let state = State::from_toml(&std::fs::read_to_string(game.join("state.toml")).unwrap()).unwrap();
    assert!(state.options.contains("political") && state.options.contains("naval"));
    // the calendar's end, or an immediate victory before it (7.1)
    assert!(state.over.is_some(), "the game is not over at {}", state.phase);
    let v = run(&["verify", "-g", g, "--replay"]);
    // Notes come first (autoplay's orders are the moderator's: they add no
    // entropy, so verify names those phases' dice as foreseeable).
    let last = v.lines().last().unwrap_or_default();
    assert!(last.starts_with("ok: ") && last.contains("phase(s) replayed"), "{v}");
}

/// The report's summary shows every kingdom, its controller and parts,
/// and the treasury only to the controller (11.x.2).
#[test]
fn the_report_shows_kingdoms_and_hides_foreign_treasuries() {
    let s = Scenario::embedded("1805").unwrap();
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut st = State::initial(&s, "r", &players, BTreeSet::from(["political".to_string()]));
    st.political.kingdoms.insert(
        "poland".into(),
        empereur::state::Kingdom {
            controller: PowerId::France,
            components: ["masovia".to_string(), "west_galicia".to_string()].into(),
            created: st.turn(),
            gold: 12,
            ceded: false,
        },
    );
    let mine = empereur::report::views::state_summary(&s, &st, PowerId::France).join("\n");
    assert!(
        mine.contains("Grand Duchy of Warsaw under France: Masovia, West Galicia; treasury 12 Gold"),
        "{mine}"
    );
    let theirs = empereur::report::views::state_summary(&s, &st.view_for(PowerId::Russia), PowerId::Russia).join("\n");
    assert!(
        theirs.contains("Grand Duchy of Warsaw under France: Masovia, West Galicia"),
        "{theirs}"
    );
    assert!(!theirs.contains("treasury"), "{theirs}");
    assert_eq!(st.view_for(PowerId::Russia).political.kingdoms["poland"].gold, 0);
}
