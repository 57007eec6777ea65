//! 11.8 Alternate dominant powers (EiA option `political`).
//!
//! France and Great Britain start dominant (11.8.4); the state records
//! only changes from that start (`state.dominance.status`). Territories
//! and the numbers the seed does not give are in
//! `tables/political_dominance.toml`.
//!
//! - 11.8.1 the New Political Combinations Step is the Winterphase's
//!   Diplomacy Phase (rules-notes §6.3), after the Economic Phase's income,
//!   expenses and purchases ([`political_step`]): a power at peace with
//!   every major power gains or loses the status by the territory it
//!   controls (11.8.3, 11.8.4). A power holds a territory's province when
//!   it controls it (4.21) or commands the minor nation that does. A
//!   kingdom of 11.1–11.7 is held by its controller once created; the
//!   seed's fallback for a game without the kingdoms ("if not using
//!   option 11.x") is a table switch, off since this option plays them.
//! - 11.8.2.1 morale: a land-battle modifier ([`battle_modifier`]).
//! - 11.8.2.2 naval advantages: Britain's +1 and Austria's and Prussia's −1
//!   nationality modifiers ([`naval_adjustment`]); Britain's first sequence
//!   in a Naval Phase (see 11.8.2.3, [`first_movers`]).
//! - 11.8.2.3 land phase sequence: 4.6 France's choice to move first is
//!   "France chooses its spot"; [`first_movers`] and [`may_opt_first`].
//! - 11.8.2.4 income: ±10 money in the Winterphase's tax step ([`income`]).
//! - 11.8.2.5 leader improvement: +1 to one leader's rating, capped
//!   ([`political_step`]); the player selects the leader with `IMPROVE
//!   <leader>` in the step, else the engine picks (see the table).
//! - 11.8.2.6 province changes: other powers' home provinces the new
//!   dominant power controls become its home nation (`state.dominance.annexed`).

use crate::ids::{Nation, PowerId};
use crate::orders::ast::{Order, PoliticalOrder};
use crate::rules::{Kind, Outcome, PhaseOrders, Rejection};
use crate::scenario::Scenario;
use crate::scenario::tables_political_dominance::Territory;
use crate::state::{State, UnitKey};

/// 11.8.2.4: "increased by 10 money points" / "reduced by 10".
const INCOME_CHANGE: i64 = 10;

/// 11.8.2.5: "an increase ... of +1".
const LEADER_IMPROVEMENT: u8 = 1;

/// 11.8.4: France and Great Britain start as dominant powers.
pub fn starts_dominant(p: PowerId) -> bool {
    matches!(p, PowerId::France | PowerId::Britain)
}

/// 11.8.1: whether `p` is a dominant power now.
pub fn is_dominant(state: &State, p: PowerId) -> bool {
    state
        .dominance
        .status
        .get(&p)
        .copied()
        .unwrap_or_else(|| starts_dominant(p))
}

fn on(state: &State) -> bool {
    super::enabled(state)
}

/// Austria, Prussia, Russia, Spain and Turkey that are dominant now.
fn risen(state: &State) -> Vec<PowerId> {
    PowerId::ALL
        .into_iter()
        .filter(|p| !starts_dominant(*p) && is_dominant(state, *p))
        .collect()
}

/// 11.8.3: `p` holds `province`: it controls it (4.21), or commands the
/// minor nation that controls it.
fn holds(scenario: &Scenario, state: &State, p: PowerId, province: &str) -> bool {
    if crate::rules::economy::controller(scenario, state, province) == Some(p) {
        return true;
    }
    state.provinces.get(province).is_some_and(|ps| {
        !ps.rebellion
            && ps.garrison.is_none()
            && ps
                .controller
                .as_ref()
                .is_some_and(|n| matches!(n, Nation::Minor(_)) && state.commanding_power(n) == Some(p))
    })
}

/// 11.8.3 / 11.8.4: whether `p` controls territory `t`.
fn territory_held(scenario: &Scenario, state: &State, p: PowerId, t: &Territory) -> bool {
    if let Some(k) = &t.kingdom {
        // a created kingdom of 11.1–11.7, "even if reduced after creation"
        if state.political.kingdoms.get(k).is_some_and(|x| x.controller == p) {
            return true;
        }
        // the seed's fallback "if not using option 11.x" (table switch)
        return scenario.tables.political_dominance.kingdom_fallback
            && !t.fallback.is_empty()
            && t.fallback.iter().filter(|x| holds(scenario, state, p, x)).count() >= t.fallback_needs;
    }
    t.provinces.iter().all(|x| holds(scenario, state, p, x))
}

fn held_list(scenario: &Scenario, state: &State, p: PowerId, ids: &[String]) -> (Vec<String>, Vec<String>) {
    let t = &scenario.tables.political_dominance;
    ids.iter()
        .cloned()
        .partition(|id| t.territory(id).is_some_and(|x| territory_held(scenario, state, p, x)))
}

/// 11.8.3 / 11.8.4: whether `p` has the territory to be dominant, and why.
pub fn qualifies(scenario: &Scenario, state: &State, p: PowerId) -> (bool, String) {
    let t = &scenario.tables.political_dominance;
    if let Some(l) = t.lose.get(&p) {
        // 11.8.4: dominant until it has lost control of `lost` of them
        let (held, lost) = held_list(scenario, state, p, &l.territories);
        let keeps = lost.len() < l.lost;
        let why = format!(
            "11.8.4: {} has lost {} of {} ({} loses the status); holds {}",
            p.name(),
            lost.len(),
            l.territories.len(),
            l.lost,
            list(&held)
        );
        return (keeps, why);
    }
    let Some(g) = t.gain.get(&p) else {
        return (false, format!("{} has no dominant-power territories", p.name()));
    };
    // 11.8.3: all home nation provinces plus `needs` territories
    let home = super::peace::home_nation(scenario, state, p);
    let missing: Vec<String> = home.iter().filter(|h| !holds(scenario, state, p, h)).cloned().collect();
    let (held, _) = held_list(scenario, state, p, &g.territories);
    let ok = missing.is_empty() && held.len() >= g.needs;
    let why = format!(
        "11.8.3: {} holds {} of its {} home nation provinces{} and {} of the {} territories it needs ({})",
        p.name(),
        home.len() - missing.len(),
        home.len(),
        if missing.is_empty() {
            String::new()
        } else {
            format!(" (not {})", list(&missing))
        },
        held.len(),
        g.needs,
        list(&held)
    );
    (ok, why)
}

fn list(v: &[String]) -> String {
    if v.is_empty() { "none".to_string() } else { v.join(", ") }
}

/// 11.8.1: the New Political Combinations Step (the Winterphase's
/// Diplomacy Phase): every power at peace with all other major powers
/// gains, keeps or loses dominant status by its territory.
pub fn political_step(scenario: &Scenario, state: &mut State, orders: &PhaseOrders, out: &mut Vec<Outcome>) {
    if !on(state) {
        return;
    }
    // 11.8.2.5: the leader each power selected (its last IMPROVE order)
    let mut chosen: std::collections::BTreeMap<PowerId, (String, String)> = Default::default();
    for (p, lines) in orders {
        for l in lines {
            if let Order::Political(PoliticalOrder::Improve { leader }) = &l.order {
                if let Err(r) = check_improve(scenario, state, *p, leader) {
                    out.push(crate::rules::economy::rejected(r.rule.as_str(), *p, &l.text, &r.reason));
                } else {
                    chosen.insert(*p, (leader.clone(), l.text.clone()));
                }
            }
        }
    }
    for p in PowerId::ALL {
        if state.relations.at_war_with_any(p) {
            continue; // 11.8.1: only at peace with all other major powers
        }
        let (qualifies, why) = qualifies(scenario, state, p);
        if qualifies == is_dominant(state, p) {
            continue;
        }
        if qualifies == starts_dominant(p) {
            state.dominance.status.remove(&p);
        } else {
            state.dominance.status.insert(p, qualifies);
        }
        let mut o = Outcome::new(
            "11.8.1",
            Kind::DominanceChanged,
            format!(
                "{} {} a dominant power",
                p.name(),
                if qualifies { "becomes" } else { "is no longer" }
            ),
        )
        .power(p)
        .why(why);
        if !starts_dominant(p) {
            o = if qualifies {
                let o = annex(scenario, state, p, o);
                let pick = chosen.remove(&p);
                improve_leader(scenario, state, p, pick.as_ref().map(|(l, _)| l.as_str()), o)
            } else {
                unimprove_leader(state, p, o)
            };
        }
        out.push(o);
    }
    // 11.8.2.5: a selection is used only by a power that becomes dominant
    for (p, (leader, text)) in chosen {
        out.push(
            Outcome::new(
                "11.8.2.5",
                Kind::OrderFailed,
                format!(
                    "{leader} is not improved: {} does not become a dominant power",
                    p.name()
                ),
            )
            .power(p)
            .order(&text)
            .only(vec![p]),
        );
    }
}

/// 11.8.2.5: whether `power` may select `leader` to improve should it
/// become dominant in this step.
pub fn check_improve(scenario: &Scenario, state: &State, power: PowerId, leader: &str) -> Result<(), Rejection> {
    if starts_dominant(power) {
        return Err(Rejection::new(
            "11.8.2.5",
            "only Austria, Prussia, Russia, Spain or Turkey improve a leader on becoming a dominant power",
        ));
    }
    if is_dominant(state, power) {
        return Err(Rejection::new(
            "11.8.2.5",
            format!(
                "{} is already a dominant power: its leader was improved when it became one",
                power.name()
            ),
        ));
    }
    let Some(c) = state
        .commanders
        .iter()
        .find(|c| c.nation == power && c.name.eq_ignore_ascii_case(leader))
    else {
        return Err(Rejection::coded(
            crate::diagnostic::Problem::UnknownCommander,
            "11.8.2.5",
            format!("{} has no leader {leader}", power.name()),
        )
        .at(crate::orders::ast::Arg::Commander(leader.to_string())));
    };
    let cap = scenario.tables.political_dominance.leader_rating_max;
    if c.rating >= cap {
        return Err(Rejection::new(
            "11.8.2.5",
            format!(
                "{} is rated {}: no leader is improved beyond {cap} (the seed's 5-5-6, tables/political_dominance.toml)",
                c.name, c.rating
            ),
        )
        .at(crate::orders::ast::Arg::Commander(leader.to_string())));
    }
    Ok(())
}

/// 11.8.2.6: at the moment `p` becomes dominant, the other major powers'
/// provinces it controls become unceded provinces of its home nation.
fn annex(scenario: &Scenario, state: &mut State, p: PowerId, mut o: Outcome) -> Outcome {
    for pr in &scenario.map.provinces {
        let other = matches!(pr.owner, crate::map::Owner::Major(q) if q != p);
        if !other || !pr.kind.is_home() || state.dominance.annexed.contains_key(&pr.id) {
            continue;
        }
        if crate::rules::economy::controller(scenario, state, &pr.id) == Some(p) {
            state.dominance.annexed.insert(pr.id.clone(), p);
            o = o.why(format!(
                "11.8.2.6: {} becomes a province of {}'s home nation",
                pr.name,
                p.name()
            ));
        }
    }
    o
}

/// 11.8.2.5: one leader of `p` gains +1, up to the table's cap: the one
/// the player `chose` (checked by [`check_improve`]), else the engine
/// picks the best-rated leader below the cap (on a tie the first in the
/// state's order).
fn improve_leader(scenario: &Scenario, state: &mut State, p: PowerId, chose: Option<&str>, o: Outcome) -> Outcome {
    let cap = scenario.tables.political_dominance.leader_rating_max;
    let mut below = state.commanders.iter_mut().filter(|c| c.nation == p && c.rating < cap);
    let pick = match chose {
        Some(name) => below.find(|c| c.name.eq_ignore_ascii_case(name)),
        None => below.rev().max_by_key(|c| c.rating),
    };
    let Some(c) = pick else {
        return o.why(format!(
            "11.8.2.5: no leader of {} is below the rating cap {cap}",
            p.name()
        ));
    };
    c.rating = (c.rating + LEADER_IMPROVEMENT).min(cap);
    let (name, rating) = (c.name.clone(), c.rating);
    state.dominance.improved.insert(p, name.clone());
    let how = if chose.is_some() {
        "selected by IMPROVE"
    } else {
        "no IMPROVE order: the best-rated below the cap"
    };
    o.why(format!("11.8.2.5: {name} is improved to rating {rating} ({how})"))
}

/// 11.8.2.5: a power that loses the status loses its leader's improvement.
fn unimprove_leader(state: &mut State, p: PowerId, o: Outcome) -> Outcome {
    let Some(name) = state.dominance.improved.remove(&p) else {
        return o;
    };
    match state.commanders.iter_mut().find(|c| c.nation == p && c.name == name) {
        Some(c) => {
            c.rating = c.rating.saturating_sub(LEADER_IMPROVEMENT);
            let r = c.rating;
            o.why(format!("11.8.2.5: {name} is back to rating {r}"))
        }
        None => o,
    }
}

/// 11.8.2.4: the income change of every power whose status differs from
/// its start, in the Money and Manpower Collection Step (4.21).
pub fn income(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    if !on(state) {
        return;
    }
    let per = scenario.tables.political_dominance.gold_per_money_point;
    for p in PowerId::ALL {
        let dominant = is_dominant(state, p);
        let change = match (starts_dominant(p), dominant) {
            (false, true) => INCOME_CHANGE * per,
            (true, false) => -INCOME_CHANGE * per,
            _ => continue,
        };
        let ps = state.power_mut(p);
        let (paid, deficit) = if change >= 0 {
            (change, 0)
        } else {
            let pay = (-change).min(ps.gold.max(0));
            (-pay, -change - pay)
        };
        ps.gold += paid;
        ps.debt += deficit;
        let mut o = Outcome::new(
            "11.8.2.4",
            Kind::Tax,
            format!(
                "{}'s income is {} by {} Gold: it is {} a dominant power",
                p.name(),
                if change > 0 { "increased" } else { "reduced" },
                change.abs(),
                if dominant { "now" } else { "no longer" }
            ),
        )
        .power(p)
        .why(format!(
            "10 money points × {per} Gold (tables/political_dominance.toml gold_per_money_point)"
        ));
        if paid != 0 {
            o = o.gold(p, paid);
        }
        if deficit > 0 {
            o = o.why(format!("{deficit} Gold the treasury cannot pay are a deficit (4.221)"));
        }
        out.push(o);
    }
}

/// 11.8.2.1: the land-battle modifier (and its reason) of the side `power`
/// speaks for, when its own infantry fights: gained by a dominant Austria,
/// Prussia, Russia, Spain or Turkey, lost by a France or Britain no longer
/// dominant.
pub fn battle_modifier(
    scenario: &Scenario,
    state: &State,
    power: Option<PowerId>,
    corps: &[UnitKey],
) -> Option<(i32, String)> {
    let p = power.filter(|_| on(state))?;
    let t = &scenario.tables.political_dominance;
    let m = match (starts_dominant(p), is_dominant(state, p)) {
        (false, true) => t.battle_modifier_gained,
        (true, false) => t.battle_modifier_lost,
        _ => return None,
    };
    let me = Nation::Major(p);
    let infantry = corps
        .iter()
        .filter_map(|k| state.corps(&k.nation, k.number))
        .flat_map(|c| &c.divisions)
        .any(|d| d.nation == me && d.arm == crate::scenario::Arm::Infantry);
    (infantry && m != 0).then(|| {
        (
            m,
            format!(
                "{m:+} {} infantry morale, {} a dominant power (11.8.2.1)",
                p.adjective(),
                if m > 0 { "as" } else { "no longer" }
            ),
        )
    })
}

/// 11.8.2.2: the change to `power`'s naval nationality modifier `base`:
/// Britain without dominant status loses its +1; a dominant Austria or
/// Prussia loses its −1.
pub fn naval_adjustment(state: &State, power: Option<PowerId>, base: i32) -> i32 {
    let Some(p) = power.filter(|_| on(state)) else {
        return 0;
    };
    let cancel = match p {
        PowerId::Britain => !is_dominant(state, p) && base > 0,
        PowerId::Austria | PowerId::Prussia => is_dominant(state, p) && base < 0,
        _ => false,
    };
    if cancel { -base } else { 0 }
}

/// 11.8.2.3 (and 11.8.2.2 for Britain): who takes the first Player
/// Turns before the chit draw (4.6), in order, with the reason; `opted`
/// says whether a power ordered MOVE FIRST. Without the option: France
/// if it opted (4.6).
pub fn first_movers(
    state: &State,
    holders: &[PowerId],
    opted: impl Fn(PowerId) -> bool,
) -> Vec<(PowerId, &'static str, String)> {
    let player = |p: PowerId| holders.contains(&p) && crate::rules::side::is_player_country(state, p);
    let mut first = Vec::new();
    if !on(state) {
        if player(PowerId::France) && opted(PowerId::France) {
            first.push((PowerId::France, "4.6", "France opts to move first".to_string()));
        }
        return first;
    }
    let risen = risen(state);
    let france = is_dominant(state, PowerId::France);
    let forced = (france && !risen.is_empty()) || (!france && risen.len() >= 2);
    if forced && holders.contains(&PowerId::France) {
        first.push((
            PowerId::France,
            "11.8.2.3",
            format!(
                "France must take the first Player Turn: {} dominant (11.8.2.3)",
                risen.iter().map(|p| p.name()).collect::<Vec<_>>().join(" and ")
            ),
        ));
    } else {
        let p = may_opt(state);
        if player(p) && opted(p) {
            let rule = if p == PowerId::France { "4.6" } else { "11.8.2.3" };
            first.push((p, rule, format!("{} opts to move first", p.name())));
        }
    }
    // 11.8.2.2: Britain without dominant status takes the first turn
    // among the others (La Guerre's naval moves come in each Player Turn).
    if !is_dominant(state, PowerId::Britain) && holders.contains(&PowerId::Britain) {
        first.push((
            PowerId::Britain,
            "11.8.2.2",
            "Great Britain, no longer a dominant power, takes the first naval sequence (11.8.2.2)".to_string(),
        ));
    }
    first
}

/// The power that may opt to move first (4.6; 11.8.2.3 when the option
/// is on).
fn may_opt(state: &State) -> PowerId {
    let risen = risen(state);
    match (on(state) && !is_dominant(state, PowerId::France), risen.as_slice()) {
        // 11.8.2.3: the one dominant power announces its place as France did
        (true, [p]) => *p,
        // otherwise France (when France must move first, its MOVE FIRST
        // changes nothing)
        _ => PowerId::France,
    }
}

/// 4.6 / 11.8.2.3: whether `p` may order MOVE FIRST.
pub fn may_opt_first(state: &State, p: PowerId) -> bool {
    may_opt(state) == p
}

/// Why a power other than [`may_opt_first`]'s may not order MOVE FIRST.
pub fn move_first_refusal(state: &State) -> crate::rules::Rejection {
    let (rule, reason) = match may_opt(state) {
        p if p != PowerId::France => (
            "11.8.2.3",
            format!(
                "only {} may opt to move first: it is the one dominant power besides Great Britain and takes France's choice",
                p.name()
            ),
        ),
        _ => ("4.6", "only France may opt to move first".to_string()),
    };
    crate::rules::Rejection::new(rule, reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use PowerId::*;

    fn game() -> (Scenario, State) {
        let s = Scenario::embedded("1805").unwrap();
        let players = PowerId::ALL.into_iter().collect();
        let state = State::initial(&s, "t", &players, ["political".to_string()].into_iter().collect());
        (s, state)
    }

    #[test]
    fn every_territory_of_the_shipped_table_is_on_the_1805_map() {
        let (s, _) = game();
        let problems = s.tables.political_dominance.problems(|id| s.map.province(id).is_some());
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn in_1805_france_and_britain_keep_their_status_and_nobody_rises() {
        let (s, state) = game();
        for p in PowerId::ALL {
            let (q, why) = qualifies(&s, &state, p);
            assert_eq!(q, starts_dominant(p), "{p}: {why}");
        }
    }

    #[test]
    fn britain_without_status_loses_its_naval_plus_one_austria_with_it_its_minus_one() {
        let (_, mut state) = game();
        assert_eq!(naval_adjustment(&state, Some(Britain), 1), 0);
        state.dominance.status.insert(Britain, false);
        assert_eq!(naval_adjustment(&state, Some(Britain), 1), -1);
        assert_eq!(naval_adjustment(&state, Some(Austria), -1), 0);
        state.dominance.status.insert(Austria, true);
        assert_eq!(naval_adjustment(&state, Some(Austria), -1), 1);
        assert_eq!(naval_adjustment(&state, Some(Russia), -1), 0);
    }
}
