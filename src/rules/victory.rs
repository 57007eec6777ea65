//! Victory (1.1, 7.1): a Player Country that reaches its national VP goal
//! (`vp_goal` on its mat, `powers.toml`) wins at once; after the last
//! turn (Fall 1815) the Player Countries are ranked by the percentage of
//! their goal reached; `over` names the best, or `draw` on a tie; the
//! whole ranking is in the outcome.

use super::outcome::Outcome;
use super::sequence::players;
use crate::ids::PowerId;
use crate::rules::Kind;
use crate::scenario::Scenario;
use crate::state::State;

/// 7.1: the Player Countries that have reached their goal, best
/// percentage first.
pub fn winners(scenario: &Scenario, state: &State) -> Vec<PowerId> {
    let mut w: Vec<PowerId> = players(state)
        .into_iter()
        .filter(|p| state.power(*p).vp >= i64::from(scenario.power(*p).vp_goal))
        .collect();
    w.sort_by_key(|p| std::cmp::Reverse(per_mille(scenario, state, *p)));
    w
}

/// VP as per-mille of the national goal (integer, for ranking).
pub fn per_mille(scenario: &Scenario, state: &State, p: PowerId) -> i64 {
    state.power(p).vp * 1000 / i64::from(scenario.power(p).vp_goal.max(1))
}

/// 1.1: end the game at once if a Player Country met its goal.
pub fn check_immediate(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) -> bool {
    let w = winners(scenario, state);
    let Some(first) = w.first() else { return false };
    let ps = state.power(*first);
    out.push(
        Outcome::new(
            "7.1",
            Kind::Victory,
            format!("{} reaches its victory goal and wins the game", first.name()),
        )
        .power(*first)
        .why(format!("{} VP of a goal of {}", ps.vp, scenario.power(*first).vp_goal)),
    );
    state.over = Some(first.id().to_string());
    true
}

/// 1.1: after the last turn, rank the Player Countries by the percentage
/// of their goal; the best is named, ties make a draw.
pub fn final_ranking(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let mut ps = players(state);
    ps.sort_by_key(|p| std::cmp::Reverse(per_mille(scenario, state, *p)));
    let mut o = Outcome::new("7.1", Kind::FinalRanking, "The game ends after the last turn");
    for (i, p) in ps.iter().enumerate() {
        let pm = per_mille(scenario, state, *p);
        o = o.why(format!(
            "{}. {}: {} VP of {} ({}.{}%)",
            i + 1,
            p.name(),
            state.power(*p).vp,
            scenario.power(*p).vp_goal,
            pm / 10,
            pm % 10
        ));
    }
    let top = ps.first().map(|p| per_mille(scenario, state, *p));
    let leaders: Vec<&PowerId> = ps
        .iter()
        .filter(|p| Some(per_mille(scenario, state, **p)) == top)
        .collect();
    state.over = Some(match leaders.as_slice() {
        [one] => one.id().to_string(),
        _ => "draw".to_string(),
    });
    out.push(o);
}
