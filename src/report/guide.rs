//! What a power may order, for the order template of its opening mail:
//! for each unit its place, the commanders with it, its movement
//! allowance and the provinces (for a squadron, the sea zones) it can
//! reach this phase; and, for the phase's order kinds, example lines
//! with real names (builds: those that can be afforded, and where).
//!
//! Nothing here decides legality: a province is listed as reachable,
//! and an example offered, only when the checker that judges the order
//! (`rules::war::movement::check`, `rules::war::naval::check_move`,
//! `orders::check`) accepts it in the current state. So the template
//! never offers what would be rejected; the engine may still stop a move
//! at a battle or an interception, as the rules say.

use super::place;
use crate::ids::{PowerId, Step};
use crate::orders;
use crate::rules::war::{movement, naval};
use crate::scenario::Scenario;
use crate::state::{Location, State, UnitKey};
use std::collections::{BTreeSet, VecDeque};

/// Most provinces or zones listed for one unit.
const REACH_MAX: usize = 40;

/// The comment lines of the template: one block per unit, then the
/// examples. Each line is written without the `# ` the template adds.
pub fn guide(scenario: &Scenario, state: &State, power: PowerId) -> Vec<String> {
    let taken = crate::rules::legality::orders_taken(state, power);
    let moves = taken.contains(&"MOVE");
    let sails = taken.contains(&"SAIL");
    let mut out = Vec::new();
    let t = &scenario.tables.movement;
    for c in &state.corps {
        if !movement::orders_corps(state, power, c) {
            continue;
        }
        let Some(loc) = &c.location else { continue };
        if c.arrives.is_some_and(|a| a > state.turn()) {
            continue;
        }
        let key = c.key();
        let divs: Vec<&str> = c.divisions.iter().map(|d| d.arm.short()).collect();
        let mover = state.corps_power(c).unwrap_or(power);
        let with: Vec<&crate::state::Commander> = state
            .commanders
            .iter()
            .filter(|m| {
                m.location.as_deref() == Some(loc.as_str())
                    && movement::orders_for(state, power, &crate::ids::Nation::Major(m.nation))
            })
            .collect();
        let mut line = format!("{} [{}]", super::corps_in(scenario, &key, loc), divs.join(" "));
        let base = t.allowance_for(mover.id(), None);
        if with.is_empty() {
            line.push_str(&format!("; moves {base}"));
        } else {
            let cmd: Vec<String> = with
                .iter()
                .map(|m| {
                    format!(
                        "{} (rating {}, moves {})",
                        m.name,
                        m.rating,
                        t.allowance_for(mover.id(), Some(m.rating))
                    )
                })
                .collect();
            line.push_str(&format!("; moves {base}; with {}", cmd.join(", ")));
        }
        out.push(line);
        if moves && !c.divisions.is_empty() {
            let best = with.iter().max_by_key(|m| m.rating).map(|m| m.name.as_str());
            let reach = land_reach(scenario, state, power, &key, loc, best);
            out.push(format!(
                "  can reach{}: {}",
                best.map(|n| format!(" (with {n})")).unwrap_or_default(),
                listed(scenario, &reach)
            ));
        }
    }
    for s in &state.squadrons {
        if !movement::orders_for(state, power, &s.nation) {
            continue;
        }
        let key = UnitKey::squadron(s.nation.clone(), s.number);
        let mover = state.commanding_power(&s.nation).unwrap_or(power);
        out.push(format!(
            "{}; sails {}",
            super::squadron_at(scenario, &key, &s.location),
            scenario.tables.naval.allowance_for(mover.id())
        ));
        if sails {
            let reach = sea_reach(scenario, state, power, &key, &s.location);
            out.push(format!("  can reach: {}", listed(scenario, &reach)));
        }
    }
    out.push(String::new());
    out.push("Your deadlines in your own time zone, named and in UTC: a line".into());
    out.push("  TIMEZONE Europe/Paris (any IANA zone name)".into());
    let examples = examples(scenario, state, power, &taken);
    if !examples.is_empty() {
        out.push(String::new());
        out.push("Examples for this phase (each is accepted as it stands):".into());
        out.extend(examples.into_iter().map(|e| format!("  {e}")));
    }
    out
}

fn listed(scenario: &Scenario, ids: &[String]) -> String {
    if ids.is_empty() {
        return "nowhere this phase".into();
    }
    let mut names: Vec<String> = ids.iter().take(REACH_MAX).map(|i| place(scenario, i)).collect();
    if ids.len() > REACH_MAX {
        names.push(format!("and {} more", ids.len() - REACH_MAX));
    }
    names.join(", ")
}

/// Provinces a corps can reach by land, breadth first over paths the
/// movement check accepts (fewest steps first), in the order found.
fn land_reach(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    key: &UnitKey,
    from: &str,
    commander: Option<&str>,
) -> Vec<String> {
    let map = &scenario.map;
    let mut seen = BTreeSet::from([from.to_string()]);
    let mut out = Vec::new();
    let mut queue = VecDeque::from([vec![from.to_string()]]);
    let keys = [key.clone()];
    while let Some(path) = queue.pop_front() {
        let here = path.last().expect("a path has a start").clone();
        let next: Vec<&str> = map
            .provinces
            .iter()
            .map(|p| p.id.as_str())
            .filter(|p| !seen.contains(*p) && (map.adjacent(&here, p) || map.arrow(&here, p).is_some()))
            .collect();
        for n in next {
            let mut longer = path.clone();
            longer.push(n.to_string());
            if movement::check(scenario, state, power, &keys, commander, &longer).is_ok() {
                seen.insert(n.to_string());
                out.push(n.to_string());
                queue.push_back(longer);
            }
        }
    }
    out
}

/// Sea zones a squadron can reach, breadth first over paths the naval
/// check accepts.
fn sea_reach(scenario: &Scenario, state: &State, power: PowerId, key: &UnitKey, at: &Location) -> Vec<String> {
    let map = &scenario.map;
    let first: Vec<String> = match at {
        Location::Port(p) => map.province(p).map(|p| p.seas.clone()).unwrap_or_default(),
        Location::Sea(z) => map
            .seas
            .iter()
            .filter(|s| map.seas_adjacent(z, &s.id))
            .map(|s| s.id.clone())
            .collect(),
    };
    let mut seen: BTreeSet<String> = BTreeSet::new();
    if let Location::Sea(z) = at {
        seen.insert(z.clone());
    }
    let mut out = Vec::new();
    let mut queue = VecDeque::new();
    for z in first {
        if seen.insert(z.clone())
            && naval::check_move(scenario, state, power, key, std::slice::from_ref(&z), &[], None).is_ok()
        {
            out.push(z.clone());
            queue.push_back(vec![z]);
        }
    }
    while let Some(path) = queue.pop_front() {
        let here = path.last().expect("a path has a start").clone();
        for s in &map.seas {
            if seen.contains(&s.id) || !map.seas_adjacent(&here, &s.id) {
                continue;
            }
            let mut longer = path.clone();
            longer.push(s.id.clone());
            if naval::check_move(scenario, state, power, key, &longer, &[], None).is_ok() {
                seen.insert(s.id.clone());
                out.push(s.id.clone());
                queue.push_back(longer);
            }
        }
    }
    out
}

/// Whether `line` is accepted for `power` in the open phase as it stands.
fn accepted(scenario: &Scenario, state: &State, power: PowerId, line: &str) -> bool {
    let c = orders::check(line, scenario, state, Some(power));
    c.all_accepted() && c.accepted.len() == 1
}

/// Example lines with real names for the kinds the phase takes, each
/// checked; builds list every single-division build that can be
/// afforded, and where.
fn examples(scenario: &Scenario, state: &State, power: PowerId, taken: &[&str]) -> Vec<String> {
    let mut cands: Vec<String> = Vec::new();
    let others: Vec<PowerId> = PowerId::ALL.into_iter().filter(|p| *p != power).collect();
    let mine_corps: Vec<&crate::state::Corps> = state
        .corps
        .iter()
        .filter(|c| c.location.is_some() && movement::orders_corps(state, power, c))
        .collect();
    for kind in taken {
        match *kind {
            "MOVE FIRST" => cands.push("MOVE FIRST".into()),
            "COOPERATE" => cands.extend(others.iter().map(|p| format!("COOPERATE WITH {}", p.name()))),
            "BID" => cands.push(format!("BID 0 VP: {}", power.name())),
            "MOVE" => {
                for c in &mine_corps {
                    let loc = c.location.as_deref().unwrap_or("");
                    let to = land_reach(scenario, state, power, &c.key(), loc, None);
                    if let Some(t) = to.first() {
                        cands.push(format!("MOVE {} -> {}", c.key().handle(scenario), place(scenario, t)));
                        break;
                    }
                }
            }
            "SAIL" => {
                for s in state
                    .squadrons
                    .iter()
                    .filter(|s| movement::orders_for(state, power, &s.nation))
                {
                    let key = UnitKey::squadron(s.nation.clone(), s.number);
                    if let Some(z) = sea_reach(scenario, state, power, &key, &s.location).first() {
                        cands.push(format!("SAIL {} -> {}", key.handle(scenario), place(scenario, z)));
                        break;
                    }
                }
            }
            "DECLARE WAR" => cands.extend(
                others
                    .iter()
                    .filter(|p| !state.relations.at_war(power, **p))
                    .map(|p| format!("DECLARE WAR ON {}", p.name())),
            ),
            "GIFT" => cands.extend(others.iter().map(|p| format!("GIFT 1 GOLD TO {}", p.name()))),
            "BUY VP" => cands.push("BUY 1 VP".into()),
            "BUILD" => {
                let mut builds = Vec::new();
                for c in &mine_corps {
                    for arm in ["inf", "cav", "art"] {
                        let l = format!("BUILD 1 {arm} IN {}", c.key().handle(scenario));
                        if accepted(scenario, state, power, &l) {
                            builds.push(l);
                        }
                    }
                }
                // Listed whole: what can be afforded, and where.
                return finish(scenario, state, power, cands, builds);
            }
            _ => {}
        }
    }
    finish(scenario, state, power, cands, Vec::new())
}

/// The first accepted candidate of each kind, then the builds.
fn finish(scenario: &Scenario, state: &State, power: PowerId, cands: Vec<String>, builds: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut kinds: BTreeSet<String> = BTreeSet::new();
    for c in cands {
        let kind: String = c.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        if kinds.contains(&kind) {
            continue;
        }
        if accepted(scenario, state, power, &c) {
            kinds.insert(kind);
            out.push(c);
        }
    }
    if state.phase.step == Step::Build && builds.is_empty() {
        out.push("(no build can be afforded or placed: send NO ORDERS)".into());
    }
    out.extend(builds);
    out
}
