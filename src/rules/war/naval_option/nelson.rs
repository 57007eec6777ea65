//! 12.2.7 Nelson (EiA option `naval`): where the British admiral is, who
//! may select melee while he lives (12.2.6.1.1.1), and his casualty roll
//! after each battle his fleet fights (12.2.7.1, 12.2.7.2).
//!
//! The seed changes EiA's rule for him but does not say when he arrives:
//! house (`tables/naval_option.toml` `[nelson]`), he commands British
//! squadron `squadron` from the start of the game; when that counter
//! leaves the map he shifts at once to the British squadron with most
//! ships (ties: the lowest number). Wounded, he is away for
//! `wounded_turns` turns; killed, he is gone for good.

use super::combat::Log;
use crate::dice::{Dice, DiceError};
use crate::ids::{Nation, PowerId};
use crate::scenario::Scenario;
use crate::state::{State, UnitKey};

/// 12.2.7.1: a casualty on 11 or 12 of 2d6 (EiA's 12 only, before the seed).
pub const CASUALTY_AT_LEAST: u32 = 11;

/// The British squadron Nelson commands now, if he is at sea.
pub fn squadron(scenario: &Scenario, state: &State) -> Option<UnitKey> {
    let n = &state.naval;
    if n.nelson_dead || n.nelson_back.is_some_and(|t| t > state.turn()) {
        return None;
    }
    let britain = Nation::Major(PowerId::Britain);
    let own = n
        .nelson_squadron
        .unwrap_or(scenario.tables.naval_option.nelson.squadron);
    if state.squadron(&britain, own).is_some() {
        return Some(UnitKey::squadron(britain, own));
    }
    let t = &scenario.tables.naval_option;
    state
        .squadrons
        .iter()
        .filter(|s| s.nation == britain)
        .max_by_key(|s| (s.ships.unwrap_or(t.ships_per_squadron), std::cmp::Reverse(s.number)))
        .map(|s| UnitKey::squadron(britain.clone(), s.number))
}

/// Keep the state's record of Nelson's squadron in step with the map
/// (he shifts when his counter is gone); returns a line for the report.
pub fn follow(scenario: &Scenario, state: &mut State) -> Option<String> {
    let now = squadron(scenario, state)?;
    let recorded = state
        .naval
        .nelson_squadron
        .unwrap_or(scenario.tables.naval_option.nelson.squadron);
    if now.number == recorded {
        return None;
    }
    state.naval.nelson_squadron = Some(now.number);
    Some(format!("12.2.7: Nelson shifts his flag to {now}"))
}

/// Whether Nelson commands one of `keys`.
pub fn commands(scenario: &Scenario, state: &State, keys: &[UnitKey]) -> bool {
    squadron(scenario, state).is_some_and(|n| keys.contains(&n))
}

/// 12.2.6.1.1.1: in games that begin in 1805 only a fleet Nelson
/// commands may select melee until he has used it once.
pub fn melee_allowed(scenario: &Scenario, state: &State, keys: &[UnitKey]) -> bool {
    scenario.start.year != 1805 || state.naval.melee_free || commands(scenario, state, keys)
}

/// 12.2.7.1 / 12.2.7.2: Nelson's casualty roll after a battle his fleet
/// fought: 2d6 plus the closing modifier he took (12.2.6.1.4.2); 11 or
/// more is a casualty, then an unmodified d6 says killed or wounded.
/// Dice: `<battle>/nelson/1`, `/nelson/2`, `/nelson/fate`.
pub fn casualty(
    scenario: &Scenario,
    state: &mut State,
    dice: &mut dyn Dice,
    purpose: &str,
    closing: u32,
    log: &mut Log,
) -> Result<(), DiceError> {
    let t = &scenario.tables.naval_option.nelson;
    let mut two = 0;
    for i in 1..=2 {
        let p = format!("{purpose}/nelson/{i}");
        let d = dice.roll(&p, 6)?;
        log.dice.push((p, d));
        two += d;
    }
    let total = two + closing;
    let hit = total >= CASUALTY_AT_LEAST;
    log.lines.push(format!(
        "12.2.7.1: Nelson's casualty roll: 2d6 {two}{} = {total}, a casualty on {CASUALTY_AT_LEAST} or more: {}",
        if closing > 0 {
            format!(" +{closing} closing modifier (12.2.7.2)")
        } else {
            String::new()
        },
        if hit { "hit" } else { "unhurt" }
    ));
    if !hit {
        return Ok(());
    }
    // 12.2.7.2: the second roll is not modified
    let p = format!("{purpose}/nelson/fate");
    let d = dice.roll(&p, 6)?;
    log.dice.push((p, d));
    if d <= t.killed_at_most {
        state.naval.nelson_dead = true;
        log.lines.push(format!(
            "12.2.7: second roll d6 {d}, at most {}: Nelson is killed",
            t.killed_at_most
        ));
    } else {
        let mut back = state.turn();
        for _ in 0..t.wounded_turns {
            back = back.next();
        }
        state.naval.nelson_back = Some(back);
        log.lines.push(format!(
            "12.2.7: second roll d6 {d}, more than {}: Nelson is wounded and away until {back}",
            t.killed_at_most
        ));
    }
    Ok(())
}
