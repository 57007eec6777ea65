//! 5.54 Overrun (house: the 2nd-edition text is not in the seeds; the
//! rules notes only know that the section exists).
//!
//! A moving stack that enters a province holding an enemy army it
//! outnumbers `overrun_ratio` to 1 or more in divisions overruns it: no
//! battle is fought; the enemy divisions there are destroyed (2.51: to
//! their force pools), their corps counters leave the map and enemy
//! commanders with them are captured, as with an army that has nowhere
//! to retreat (5.6). The overrun costs the stack `overrun_cost` movement
//! points more; with points left it may move on (the 5.513 exception: it
//! need not stop). Both numbers live in `tables/movement.toml`. A corps in
//! a white-named province is never overrun: it cannot be attacked by land
//! at all (2.11).

use super::control::{hostile, name, to_pool};
use crate::ids::{Nation, PowerId};
use crate::rules::Why;
use crate::scenario::Scenario;
use crate::state::{State, UnitKey};

/// 5.54: whether the stack `corps` overruns an enemy army of `enemy`
/// divisions.
pub fn overruns(scenario: &Scenario, state: &State, corps: &[UnitKey], enemy: u32) -> bool {
    let r = scenario.tables.movement.overrun_ratio;
    if r == 0 || enemy == 0 {
        return false;
    }
    let own: u32 = corps
        .iter()
        .filter_map(|k| state.corps(&k.nation, k.number))
        .map(|c| c.divisions.len() as u32)
        .sum();
    own >= enemy * r
}

/// 5.54: the extra movement points of entering `province`, where the
/// stack overruns an enemy army of `enemy` divisions (0 if it does not).
pub fn extra_cost(scenario: &Scenario, state: &State, corps: &[UnitKey], enemy: u32) -> u32 {
    if overruns(scenario, state, corps, enemy) {
        scenario.tables.movement.overrun_cost
    } else {
        0
    }
}

/// 5.54: `mover`'s stack overruns the enemy army in `province`. Returns
/// the why-lines of the move outcome.
pub fn overrun(scenario: &Scenario, state: &mut State, mover: PowerId, province: &str, own: u32) -> Vec<Why> {
    let me = Nation::Major(mover);
    let enemy: Vec<UnitKey> = state
        .corps_in(province)
        .filter(|&c| hostile(state, &me, c))
        .map(|c| c.key())
        .collect();
    let t = &scenario.tables.movement;
    let mut lost = 0;
    let mut powers = Vec::new();
    for k in &enemy {
        if let Some(p) = state.corps(&k.nation, k.number).and_then(|c| state.corps_power(c)) {
            powers.push(p);
        }
        let divs = state
            .corps_mut(&k.nation, k.number)
            .map(|c| {
                c.location = None;
                std::mem::take(&mut c.divisions)
            })
            .unwrap_or_default();
        lost += divs.len();
        for d in &divs {
            to_pool(state, d);
        }
    }
    let mut why: Vec<Why> = vec![format!(
        "5.54 (house overrun_ratio {}, overrun_cost {}): {own} divisions overrun the {lost} enemy divisions in {}: no battle; {} destroyed (2.51: to their pools)",
        t.overrun_ratio,
        t.overrun_cost,
        name(scenario, province),
        enemy.iter().map(|k| k.name(scenario)).collect::<Vec<_>>().join(", ")
    )
    .into()];
    for cm in state.commanders.iter_mut() {
        if cm.location.as_deref() == Some(province) && powers.contains(&cm.nation) {
            cm.location = None;
            why.push(format!("{} is captured with his army (5.54)", cm.name).into());
        }
    }
    why
}
