//! After a naval battle of the EiA option: fleets written back, political
//! points (12.2.6.1.6.3) and disabled ships (12.2.6.1.9, .9.1) taken home
//! as hulks (12.2.8).

use super::combat::{Ending, Fight, Force, Log};
use super::ports::{From, disabled_port};
use crate::dice::DiceError;
use crate::ids::PowerId;
use crate::rules::war::control::squadron_to_pool;
use crate::scenario::tables_naval::NavalOptionTable;
use crate::state::State;
use std::collections::BTreeMap;

/// After the rounds (and chase) of any naval battle: the ships back into
/// the state, then the political points of 12.2.6.1.6.3 (the VP changes
/// made).
pub fn settle(
    state: &mut State,
    table: &NavalOptionTable,
    sides: &[Force; 2],
    ending: Ending,
    log: &mut Log,
) -> BTreeMap<PowerId, i64> {
    write_back(state, sides, log);
    political_points(state, table, sides, ending, log)
}

/// The fleets' ships back into the state; a squadron with no ship fit
/// for combat leaves the map (its counter returns to the pool, 2.51).
pub fn write_back(state: &mut State, sides: &[Force; 2], log: &mut Log) {
    for f in sides.iter().flat_map(|s| &s.fleets) {
        let Some(i) = state
            .squadrons
            .iter()
            .position(|s| s.nation == f.key.nation && s.number == f.key.number)
        else {
            continue;
        };
        if f.ships == 0 {
            let s = state.squadrons.remove(i);
            squadron_to_pool(state, &s.nation);
            log.push(crate::rules::Why::NoShipLeft {
                squadron: f.name.clone(),
            });
        } else {
            state.squadrons[i].ships = Some(f.ships);
        }
    }
}

/// 12.2.6.1.6.3: the victor gains, the defeated loses, political points
/// per fleet counter of the defeated side, as Victory Points
/// (`tables/naval_option.toml` `pp_per_fleet`, `vp_per_pp`). No victor,
/// no change. Returns the VP changes made.
pub fn political_points(
    state: &mut State,
    table: &NavalOptionTable,
    sides: &[Force; 2],
    ending: Ending,
    log: &mut Log,
) -> BTreeMap<PowerId, i64> {
    let mut changes = BTreeMap::new();
    let Some(v) = ending.victor() else {
        return changes;
    };
    let per_fleet = table.pp_per_fleet * table.vp_per_pp;
    let loser = &sides[1 - v];
    for f in &loser.fleets {
        if let Some(p) = state.unit_power(&f.key) {
            *changes.entry(p).or_insert(0) -= per_fleet;
        }
    }
    if let Some(p) = sides[v].power {
        *changes.entry(p).or_insert(0) += per_fleet * loser.fleets.len() as i64;
    }
    changes.retain(|_, d| *d != 0);
    for (p, d) in &changes {
        state.power_mut(*p).vp += d;
        log.push(format!(
            "12.2.6.1.6.3: {} {d:+} VP ({} political point(s) a fleet counter of the beaten side, {} VP each)",
            p.name(),
            table.pp_per_fleet,
            table.vp_per_pp
        ));
    }
    changes
}

/// 12.2.6.1.9: who holds the disabled ships: the victor takes the
/// defeated side's and keeps its own; with no victor each side keeps its
/// own. 12.2.6.1.9.1: each holder sends them to its nearest usable port
/// (own, conquered or allied control); one die a ship: lost when the die
/// is 1 or at most the distance, else a hulk in that port.
pub fn disabled_ships(
    fight: &mut Fight<'_, '_>,
    state: &mut State,
    sides: &[Force; 2],
    ending: Ending,
    at: &From<'_>,
) -> Result<(), DiceError> {
    let mut held = [sides[0].disabled(), sides[1].disabled()];
    if let Some(v) = ending.victor() {
        let taken = held[1 - v];
        held[v] += taken;
        held[1 - v] = 0;
        if taken > 0 {
            fight.line(format!(
                "12.2.6.1.9: the {} takes the {taken} disabled ship(s) of the {}",
                sides[v].role,
                sides[1 - v].role
            ));
        }
    }
    for (i, n) in held.into_iter().enumerate() {
        send_home(fight, state, &sides[i], n, at)?;
    }
    Ok(())
}

/// 12.2.6.1.9.1: `n` disabled ships held by `side` make for the port its
/// power chose by standing order, else its nearest usable port, from `at`: one die each, lost on 1 or at most the
/// distance, else a hulk there (12.2.8).
pub fn send_home(
    fight: &mut Fight<'_, '_>,
    state: &mut State,
    side: &Force,
    n: u32,
    at: &From<'_>,
) -> Result<(), DiceError> {
    if n == 0 {
        return Ok(());
    }
    if let From::Sea(z) = at
        && let Some(r) = super::west_indies::disabled(fight, state, side, n, z)
    {
        return r; // 12.2.7.3: off the board
    }
    let scenario = fight.scenario();
    let Some(power) = side.power else {
        fight.line(format!(
            "12.2.6.1.9.1: the {} has no port to send {n} disabled ship(s) to: lost",
            side.role
        ));
        return Ok(());
    };
    let Some((port, dist, decided)) = disabled_port(scenario, state, power, at) else {
        fight.line(format!(
            "12.2.6.1.9.1: {} has no port within reach for {n} disabled ship(s): lost",
            power.name()
        ));
        return Ok(());
    };
    let mut saved = 0;
    let mut rolls = Vec::new();
    for k in 1..=n {
        let d = fight.roll(&format!("disabled/{}/{k}", power.id()))?;
        let lost = voyage_lost(d, dist);
        rolls.push(format!("{d}{}", if lost { " lost" } else { " home" }));
        if !lost {
            saved += 1;
        }
    }
    fight.told(
        state,
        Some(power),
        "12.2.6.1.9.1",
        format!(
            "{} takes its disabled ships to {}",
            power.name(),
            crate::rules::war::control::name(scenario, &port)
        ),
        &decided,
    );
    state.add_hulks(&port, power, saved);
    fight.line(format!(
        "12.2.6.1.9.1: {} sends {n} disabled ship(s) to {} ({dist} MP; lost on 1 or at most {dist}): {}; {saved} reach port as hulks (12.2.8)",
        power.name(),
        crate::rules::war::control::name(scenario, &port),
        rolls.join(", ")
    ));
    Ok(())
}

/// 12.2.6.1.9.1: a disabled ship `dist` movement points from its port is
/// lost when the die is at most the distance; a 1 always sinks it.
pub fn voyage_lost(die: u32, dist: u32) -> bool {
    die == 1 || die <= dist
}

#[cfg(test)]
mod tests {
    use super::voyage_lost;

    #[test]
    fn a_ship_is_lost_at_or_under_its_distance_and_always_on_a_one() {
        // rules-notes NAV-2: 3 MP, d6 = 3: lost
        assert!(voyage_lost(3, 3));
        assert!(!voyage_lost(4, 3));
        // NAV-3: 1 MP, d6 = 1: lost (a 1 always sinks)
        assert!(voyage_lost(1, 1));
        assert!(voyage_lost(1, 0));
        assert!(!voyage_lost(2, 1));
        assert!(!voyage_lost(2, 0));
    }
}
