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
    Some(format!("12.2.7: Nelson shifts his flag to {}", now.name(scenario)))
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
    log.push(format!(
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
        log.push(format!(
            "12.2.7: second roll d6 {d}, at most {}: Nelson is killed",
            t.killed_at_most
        ));
    } else {
        let mut back = state.turn();
        for _ in 0..t.wounded_turns {
            back = back.next();
        }
        state.naval.nelson_back = Some(back);
        log.push(format!(
            "12.2.7: second roll d6 {d}, more than {}: Nelson is wounded and away until {back}",
            t.killed_at_most
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Turn;

    fn setup() -> (Scenario, State) {
        let s = Scenario::embedded("1805").unwrap();
        let players = PowerId::ALL.into_iter().collect();
        let state = State::initial(&s, "t", &players, ["naval".to_string()].into());
        (s, state)
    }

    #[test]
    fn nelson_starts_with_the_table_s_squadron_and_shifts_when_it_is_gone() {
        let (s, mut state) = setup();
        let britain = Nation::Major(PowerId::Britain);
        let first = s.tables.naval_option.nelson.squadron;
        assert_eq!(squadron(&s, &state), Some(UnitKey::squadron(britain.clone(), first)));
        assert_eq!(follow(&s, &mut state), None);
        // his counter leaves the map: the British squadron with most ships
        state.squadrons.retain(|q| !(q.nation == britain && q.number == first));
        let others: Vec<u32> = state
            .squadrons
            .iter()
            .filter(|q| q.nation == britain)
            .map(|q| q.number)
            .collect();
        assert!(others.len() >= 2, "the 1805 set-up has several British squadrons");
        let big = others[1];
        if let Some(q) = state
            .squadrons
            .iter_mut()
            .find(|q| q.nation == britain && q.number == big)
        {
            q.ships = Some(20);
        }
        assert!(follow(&s, &mut state).is_some());
        assert_eq!(state.naval.nelson_squadron, Some(big));
        assert!(commands(&s, &state, &[UnitKey::squadron(britain.clone(), big)]));
        // wounded: away until his return turn, then back
        state.naval.nelson_back = Some(state.turn().next());
        assert_eq!(squadron(&s, &state), None);
        state.naval.nelson_back = Some(state.turn());
        assert!(squadron(&s, &state).is_some());
        state.naval.nelson_dead = true;
        assert_eq!(squadron(&s, &state), None);
        let _ = Turn::parse("1806-spring");
    }

    #[test]
    fn melee_is_nelson_s_alone_in_1805_until_he_has_used_it() {
        let (s, mut state) = setup();
        let french = [UnitKey::squadron(Nation::Major(PowerId::France), 1)];
        let his = [UnitKey::squadron(
            Nation::Major(PowerId::Britain),
            s.tables.naval_option.nelson.squadron,
        )];
        assert_eq!(s.start.year, 1805);
        assert!(!melee_allowed(&s, &state, &french));
        assert!(melee_allowed(&s, &state, &his));
        state.naval.melee_free = true;
        assert!(melee_allowed(&s, &state, &french));
    }

    #[test]
    fn the_casualty_roll_counts_the_closing_modifier_and_the_fate_roll_does_not() {
        use crate::testing::ScriptedDice;
        let (s, mut state) = setup();
        let dice = |v: &[(&str, u32)]| ScriptedDice::new(v.iter().map(|(k, d)| (k.to_string(), *d)).collect(), None);
        // 2d6 = 9, +2 closing = 11: a casualty; fate 3 > 2: wounded
        let mut d = dice(&[("b/nelson/1", 4), ("b/nelson/2", 5), ("b/nelson/fate", 3)]);
        let mut log = Log::default();
        casualty(&s, &mut state, &mut d, "b", 2, &mut log).unwrap();
        assert!(!state.naval.nelson_dead);
        let back = state.naval.nelson_back.expect("wounded");
        let mut want = state.turn();
        for _ in 0..s.tables.naval_option.nelson.wounded_turns {
            want = want.next();
        }
        assert_eq!(back, want);
        // 2d6 = 10 without modifier: unhurt
        let (s, mut state) = setup();
        let mut d = dice(&[("b/nelson/1", 4), ("b/nelson/2", 6)]);
        casualty(&s, &mut state, &mut d, "b", 0, &mut log).unwrap();
        assert_eq!(state.naval, crate::state::NavalState::default());
        // fate at most killed_at_most: killed
        let mut d = dice(&[("c/nelson/1", 6), ("c/nelson/2", 6), ("c/nelson/fate", 2)]);
        casualty(&s, &mut state, &mut d, "c", 0, &mut log).unwrap();
        assert!(state.naval.nelson_dead);
    }
}
