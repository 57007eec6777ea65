//! What one power may see (2.5, 3.31): foreign corps keep their place but
//! not their divisions, foreign force pools are hidden, and a player sees
//! everything of the NPCs it gives orders for: an Allied NPC, a
//! Controlled NPC, a minor power it controls. Nobody else does.

use empereur::ids::{Nation, PowerId};
use empereur::scenario::Scenario;
use empereur::state::{Control, PoolState, State};
use std::collections::BTreeSet;

fn start() -> State {
    let scenario = Scenario::embedded("1805").unwrap();
    let players: BTreeSet<PowerId> = [PowerId::France, PowerId::Britain, PowerId::Russia].into();
    let mut s = State::initial(&scenario, "view", &players, BTreeSet::new());
    // 3.31: Prussia allied with France, Austria at war with Britain alone
    // (run by Britain), Spain inactive.
    s.power_mut(PowerId::Prussia).control = Control::Allied { with: PowerId::France };
    s.power_mut(PowerId::Austria).control = Control::Controlled { by: PowerId::Britain };
    s.power_mut(PowerId::Spain).control = Control::Inactive;
    s
}

/// Divisions `viewer` sees in the corps of `nation`, summed.
fn divisions_seen(s: &State, viewer: PowerId, nation: &Nation) -> usize {
    s.view_for(viewer)
        .corps
        .iter()
        .filter(|c| &c.nation == nation)
        .map(|c| c.divisions.len())
        .sum()
}

fn divisions(s: &State, nation: &Nation) -> usize {
    s.corps
        .iter()
        .filter(|c| &c.nation == nation)
        .map(|c| c.divisions.len())
        .sum()
}

fn pool_seen(s: &State, viewer: PowerId, of: PowerId) -> PoolState {
    s.view_for(viewer).power(of).pool
}

#[test]
fn every_power_sees_its_own_corps_and_pool_whole() {
    let s = start();
    for p in [PowerId::France, PowerId::Britain, PowerId::Russia] {
        let n = Nation::Major(p);
        assert!(divisions(&s, &n) > 0, "{p} starts with divisions");
        assert_eq!(divisions_seen(&s, p, &n), divisions(&s, &n), "{p}");
        assert_eq!(pool_seen(&s, p, p), s.power(p).pool, "{p}");
    }
}

#[test]
fn foreign_corps_keep_their_place_but_not_their_divisions() {
    let s = start();
    let v = s.view_for(PowerId::France);
    assert_eq!(v.corps.len(), s.corps.len());
    for (seen, real) in v.corps.iter().zip(&s.corps) {
        assert_eq!(
            (&seen.nation, seen.number, &seen.location),
            (&real.nation, real.number, &real.location)
        );
    }
    assert_eq!(divisions_seen(&s, PowerId::France, &Nation::Major(PowerId::Russia)), 0);
    assert_eq!(divisions_seen(&s, PowerId::Russia, &Nation::Major(PowerId::France)), 0);
    assert_ne!(s.power(PowerId::Britain).pool, PoolState::default());
    assert_eq!(pool_seen(&s, PowerId::France, PowerId::Britain), PoolState::default());
}

#[test]
fn an_allied_npc_is_seen_whole_by_its_ally_only() {
    let s = start();
    let prussia = Nation::Major(PowerId::Prussia);
    assert!(divisions(&s, &prussia) > 0);
    assert_eq!(divisions_seen(&s, PowerId::France, &prussia), divisions(&s, &prussia));
    assert_eq!(
        pool_seen(&s, PowerId::France, PowerId::Prussia),
        s.power(PowerId::Prussia).pool
    );
    for other in [PowerId::Britain, PowerId::Russia] {
        assert_eq!(divisions_seen(&s, other, &prussia), 0, "{other}");
        assert_eq!(pool_seen(&s, other, PowerId::Prussia), PoolState::default(), "{other}");
    }
}

#[test]
fn a_controlled_npc_is_seen_whole_by_its_controller_only() {
    let s = start();
    let austria = Nation::Major(PowerId::Austria);
    assert!(divisions(&s, &austria) > 0);
    assert_eq!(divisions_seen(&s, PowerId::Britain, &austria), divisions(&s, &austria));
    assert_eq!(divisions_seen(&s, PowerId::France, &austria), 0);
    assert_eq!(divisions_seen(&s, PowerId::Russia, &austria), 0);
}

#[test]
fn an_inactive_npc_is_hidden_from_every_player() {
    let s = start();
    let spain = Nation::Major(PowerId::Spain);
    assert!(divisions(&s, &spain) > 0);
    for p in [PowerId::France, PowerId::Britain, PowerId::Russia] {
        assert_eq!(divisions_seen(&s, p, &spain), 0, "{p}");
        assert_eq!(pool_seen(&s, p, PowerId::Spain), PoolState::default(), "{p}");
    }
}

#[test]
fn a_minor_power_is_seen_whole_by_the_power_controlling_it() {
    let mut s = start();
    let Some(minor_corps) = s
        .corps
        .iter()
        .find(|c| matches!(c.nation, Nation::Minor(_)) && !c.divisions.is_empty())
    else {
        panic!("the 1805 set-up has a minor power's corps with divisions");
    };
    let nation = minor_corps.nation.clone();
    let Nation::Minor(m) = &nation else { unreachable!() };
    s.minors.get_mut(m).unwrap().controller = Some(PowerId::Russia);
    assert_eq!(divisions_seen(&s, PowerId::Russia, &nation), divisions(&s, &nation));
    assert_eq!(divisions_seen(&s, PowerId::France, &nation), 0);
    // Through an Allied NPC: Prussia controls it, France runs Prussia.
    s.minors.get_mut(m).unwrap().controller = Some(PowerId::Prussia);
    assert_eq!(divisions_seen(&s, PowerId::France, &nation), divisions(&s, &nation));
    assert_eq!(divisions_seen(&s, PowerId::Russia, &nation), 0);
}

/// 12.2.6.1.3.1 (EiA option `naval`): a fleet's ships are revealed only
/// in battle, and hulks in port are their owner's (and its puppets')
/// knowledge (12.2.8).
#[test]
fn foreign_ship_counts_and_hulks_are_hidden() {
    let mut s = start();
    for q in &mut s.squadrons {
        q.ships = Some(5);
    }
    s.hulks.entry("brittany".into()).or_default().insert("france".into(), 2);
    s.hulks
        .entry("brittany".into())
        .or_default()
        .insert("britain".into(), 1);
    s.hulks.entry("london".into()).or_default().insert("britain".into(), 3);
    s.hulks.entry("london".into()).or_default().insert("prussia".into(), 1);
    let v = s.view_for(PowerId::France);
    for (seen, real) in v.squadrons.iter().zip(&s.squadrons) {
        let own = matches!(real.nation, Nation::Major(PowerId::France | PowerId::Prussia));
        assert_eq!(
            seen.ships,
            if own { Some(5) } else { None },
            "{}-{}",
            real.nation,
            real.number
        );
    }
    assert!(v.squadrons.iter().any(|q| q.ships.is_some()));
    assert_eq!(v.hulks["brittany"].len(), 1);
    assert_eq!(v.hulks["brittany"]["france"], 2);
    assert_eq!(v.hulks["london"].len(), 1, "Prussia is France's Allied NPC");
    let b = s.view_for(PowerId::Russia);
    assert!(b.hulks.is_empty());
}

/// A power's naval standing orders (12.2.6.1.7: no general chase) are
/// kept in the state file from one phase to the next, and in that
/// power's own state file, not in another's (2.5).
#[test]
fn naval_standing_orders_survive_the_state_file() {
    let mut s = start();
    let mut st = s.standing.get(&PowerId::Britain).cloned().unwrap_or_default();
    st.naval.chase = Some(false);
    s.standing.insert(PowerId::Britain, st);
    let back = State::from_toml(&s.to_toml()).unwrap();
    assert_eq!(back.standing[&PowerId::Britain].naval.chase, Some(false));
    let own = State::from_toml(&s.view_text_for(PowerId::Britain)).unwrap();
    assert_eq!(own.standing[&PowerId::Britain].naval.chase, Some(false));
    let other = State::from_toml(&s.view_text_for(PowerId::France)).unwrap();
    assert!(
        other
            .standing
            .get(&PowerId::Britain)
            .is_none_or(|o| o.naval.chase.is_none()),
        "France's state file shows Britain's standing orders"
    );
}
