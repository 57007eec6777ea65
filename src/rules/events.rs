//! 4.72 Random events, and the Rebellion and Commanders tables (2.41).
//!
//! Each Player Country rolls once in its Turn Preparation (QA01: only PCs
//! roll) on the table of the season (`events.toml`: `season_table`, with
//! `fall_override` for France and Britain). The row's effect comes from a
//! closed list; a row whose condition is unmet has no effect and, if
//! once-only, stays available (FAQ98 4.72). Effects:
//! - `gold`/`vp`: ± amount (Gold never below zero: a loss beyond the
//!   treasury becomes a deficit, 4.221);
//! - `rebellion` (2.25): a ghost division takes one of the roller's
//!   controlled provinces outside its home without a corps (Rebellion
//!   Table picks which); its garrison returns to the pool;
//! - `commander` (2.24): a new commander (Commanders Table) in the capital;
//! - `peace_party` (PP00, house): every war of the roller ends with an
//!   enforced peace (`peace_enforced_seasons`), the roller paying `amount`
//!   VP to each enemy;
//! - `remap` (3.42, 4.73): a Loyal Minor Power whose provinces the roller
//!   controls is formed and given to it;
//! - `npc_alliance`: a free NPC alliance roll (4.71) on the first Inactive
//!   NPC in prominence order;
//! - `none`.

use super::EngineError;
use super::economy::controlled;
use super::outcome::Outcome;
use crate::dice::Dice;
use crate::ids::{PowerId, Season};
use crate::map::Owner;
use crate::rules::Kind;
use crate::rules::Why;
use crate::scenario::Scenario;
use crate::scenario::tables::{EventCondition, EventEffect, EventRow};
use crate::state::{Commander, Control, State};

fn condition_met(state: &State, p: PowerId, c: EventCondition) -> bool {
    match c {
        EventCondition::Always => true,
        EventCondition::AtWar => state.relations.at_war_with_any(p),
        EventCondition::AtPeace => !state.relations.at_war_with_any(p),
        EventCondition::From1808 => state.turn().year >= 1808,
    }
}

/// 4.72: the event roll of Player Country `p` in its Turn Preparation.
pub fn roll(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    if !crate::rules::side::is_player_country(state, p) {
        return Ok(());
    }
    let t = &scenario.tables.events;
    let table_id = match state.turn().season {
        Season::Spring => &t.season_table.spring,
        Season::Summer => &t.season_table.summer,
        _ => t.fall_override.get(&p).unwrap_or(&t.season_table.fall),
    };
    let Some(table) = t.table.iter().find(|x| &x.id == table_id) else {
        out.push(Outcome::new("4.72", Kind::Event, format!("No event table '{table_id}'")).power(p));
        return Ok(());
    };
    let purpose = format!("events/{}/{p}/{table_id}", state.turn());
    let v = dice.roll(&purpose, t.die)?;
    let row = table.rows.iter().find(|r| r.from <= v && v <= r.to).cloned();
    let base = Outcome::new("4.72", Kind::Event, "").power(p).die(&purpose, v);
    let Some(row) = row else {
        let mut o = base.why(format!("table {table_id}: no row for {v}"));
        o.summary = format!("{}: no event", p.name());
        out.push(o);
        return Ok(());
    };
    let o = base.why(Why::table_row(table_id.as_str(), row.from, row.to, row.text.as_str()));
    let used_id = row.id.clone().unwrap_or_else(|| format!("{table_id}/{}", row.from));
    if row.once && state.events_used.contains(&used_id) {
        let mut o = o.why("once-only event already used");
        o.summary = format!("{}: {} (already used, no effect)", p.name(), row.text);
        out.push(o);
        return Ok(());
    }
    if !condition_met(state, p, row.condition) {
        let mut o = o.why(format!(
            "condition {:?} not met: no effect; the event stays available (FAQ98 4.72)",
            row.condition
        ));
        o.summary = format!("{}: {} (conditions not met)", p.name(), row.text);
        out.push(o);
        return Ok(());
    }
    let applied = apply(scenario, state, p, &row, dice, o, out)?;
    if applied && row.once {
        state.events_used.insert(used_id);
    }
    Ok(())
}

fn apply(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    row: &EventRow,
    dice: &mut dyn Dice,
    mut o: Outcome,
    out: &mut Vec<Outcome>,
) -> Result<bool, EngineError> {
    let name = p.name();
    let event = Event { scenario, p, row };
    match row.effect {
        EventEffect::None => o.summary = format!("{name}: {} (no effect)", row.text),
        EventEffect::Gold => {
            let ps = state.power_mut(p);
            let delta = if row.amount >= 0 {
                row.amount
            } else {
                -(-row.amount).min(ps.gold.max(0))
            };
            ps.gold += delta;
            ps.debt += delta - row.amount;
            o = o.gold(p, delta);
            o.summary = format!("{name}: {} ({:+} Gold)", row.text, row.amount);
        }
        EventEffect::Vp => {
            state.power_mut(p).vp += row.amount;
            o = o.vp(p, row.amount);
            o.summary = format!("{name}: {} ({:+} VP)", row.text, row.amount);
        }
        EventEffect::Rebellion => return event.rebellion(state, dice, o, out),
        EventEffect::Commander => return event.commander(state, dice, o, out),
        EventEffect::PeaceParty => return Ok(event.peace_party(state, o, out)),
        EventEffect::Remap => return Ok(event.remap(state, o, out)),
        EventEffect::NpcAlliance => return event.npc_alliance(state, dice, o, out),
    }
    out.push(o);
    Ok(true)
}

/// The event a power rolled, as its effect is applied: each effect
/// below pushes its outcome and says whether it took effect.
struct Event<'a> {
    scenario: &'a Scenario,
    p: PowerId,
    row: &'a EventRow,
}

impl Event<'_> {
    /// 2.25: a ghost division takes one of the roller's provinces.
    fn rebellion(
        &self,
        state: &mut State,
        dice: &mut dyn Dice,
        mut o: Outcome,
        out: &mut Vec<Outcome>,
    ) -> Result<bool, EngineError> {
        let (scenario, p, row, name) = (self.scenario, self.p, self.row, self.p.name());
        let cands: Vec<String> = controlled(scenario, state, p)
            .into_iter()
            .filter(|id| !matches!(scenario.map.province(id).map(|x| &x.owner), Some(Owner::Major(q)) if *q == p))
            .filter(|id| state.corps_in(id).next().is_none())
            .collect();
        if cands.is_empty() {
            o.summary = format!("{name}: {} — no province can rebel (no effect)", row.text);
            o = o.why("no controlled province outside the home country without a corps");
            out.push(o);
            return Ok(false);
        }
        let t = &scenario.tables.events.rebellion;
        let purpose = format!("events/{}/{p}/rebellion", state.turn());
        let v = dice.roll(&purpose, scenario.tables.events.die)?;
        let at = if t.last[0] <= v && v <= t.last[1] {
            cands[cands.len() - 1].clone()
        } else {
            cands[0].clone()
        };
        let ps = state.provinces.entry(at.clone()).or_default();
        if let Some(g) = ps.garrison.take() {
            // 2.51: the division goes back to its nation's pool (a
            // kingdom's division to its minor's, 11.1.2)
            crate::rules::war::control::to_pool_arm(state, &g.nation, crate::scenario::Arm::Infantry);
        }
        let home_of_controller = state.provinces.get(&at).is_some_and(|ps| {
            scenario
                .map
                .province(&at)
                .is_some_and(|p| p.kind.is_home() && ps.controller.as_ref().and_then(|c| c.major()) == p.owner.major())
        });
        if let Some(ps) = state.provinces.get_mut(&at) {
            ps.rebellion = true;
            // 2.25, 4.21: outside its home a power held the province only
            // by the garrison the rebels ousted; a home province stays
            // its own, lost only while the ghost division holds it.
            if !home_of_controller {
                ps.controller = None;
            }
        }
        o = o
            .die(&purpose, v)
            .why(Why::table_roll("Rebellion Table", v, at.as_str()));
        o.summary = format!("{name}: {} — {at} rebels (ghost division, 2.25)", row.text);
        out.push(o);
        Ok(true)
    }

    /// 2.24: a new commander (Commanders Table) in the capital.
    fn commander(
        &self,
        state: &mut State,
        dice: &mut dyn Dice,
        mut o: Outcome,
        out: &mut Vec<Outcome>,
    ) -> Result<bool, EngineError> {
        let (scenario, p, row, name) = (self.scenario, self.p, self.row, self.p.name());
        let purpose = format!("events/{}/{p}/commander", state.turn());
        let v = dice.roll(&purpose, scenario.tables.events.die)?;
        let rating = scenario
            .tables
            .events
            .commander
            .iter()
            .find(|r| r.from <= v && v <= r.to)
            .map_or(1, |r| r.rating);
        let n = state.commanders.iter().filter(|c| c.nation == p).count() + 1;
        let cname = format!("{} general {n}", p.adjective());
        let cap = scenario.power(p).capital.clone();
        state.commanders.push(Commander {
            name: cname.clone(),
            nation: p,
            rating,
            location: Some(cap.clone()),
            arrives: None,
            primary: false,
        });
        o = o
            .die(&purpose, v)
            .why(Why::table_roll("Commanders Table", v, format!("rating {rating}")));
        o.summary = format!("{name}: {} — {cname} (rating {rating}) appears in {cap}", row.text);
        out.push(o);
        Ok(true)
    }

    /// PP00 (house): every war of the roller ends with an enforced peace.
    fn peace_party(&self, state: &mut State, mut o: Outcome, out: &mut Vec<Outcome>) -> bool {
        let (scenario, p, row, name) = (self.scenario, self.p, self.row, self.p.name());
        let seasons = scenario.tables.diplomacy.peace_enforced_seasons;
        let until = (0..seasons).fold(state.turn(), |t, _| t.next());
        for e in state.relations.enemies(p) {
            state.relations.set_war(p, e, false);
            let pair = if p <= e { [p, e] } else { [e, p] };
            state.relations.enforced_peace.retain(|x| x.powers != pair);
            state
                .relations
                .enforced_peace
                .push(crate::state::EnforcedPeace { powers: pair, until });
            state.power_mut(p).vp -= row.amount;
            state.power_mut(e).vp += row.amount;
            o = o
                .vp(p, -row.amount)
                .vp(e, row.amount)
                .why(format!("peace with {} until {until}", e.name()));
        }
        state.relations.enforced_peace.sort();
        o.summary = format!("{name}: {} — its wars end", row.text);
        out.push(o);
        super::diplomacy::refresh_npcs(state, out);
        true
    }

    /// 3.42, 4.73: a Loyal Minor Power the roller holds is formed.
    fn remap(&self, state: &mut State, mut o: Outcome, out: &mut Vec<Outcome>) -> bool {
        let (scenario, p, row, name) = (self.scenario, self.p, self.row, self.p.name());
        let mine = controlled(scenario, state, p);
        let loyal = scenario
            .map
            .provinces
            .iter()
            .filter(|pr| mine.contains(&pr.id))
            .filter_map(|pr| pr.loyal.clone())
            .find(|l| state.minors.get(l).is_some_and(|m| !m.formed));
        match loyal {
            Some(l) => {
                if let Some(m) = state.minors.get_mut(&l) {
                    m.formed = true;
                    m.controller = Some(p);
                }
                o.summary = format!("{name}: {} — the Loyal Minor Power {l} is formed (3.42)", row.text);
            }
            None => {
                o.summary = format!(
                    "{name}: {} — no Loyal Minor Power can be formed (no effect; stays available)",
                    row.text
                );
                out.push(o);
                return false;
            }
        }
        out.push(o);
        true
    }

    /// 4.71: a free NPC alliance roll on the first Inactive NPC.
    fn npc_alliance(
        &self,
        state: &mut State,
        dice: &mut dyn Dice,
        mut o: Outcome,
        out: &mut Vec<Outcome>,
    ) -> Result<bool, EngineError> {
        let (scenario, p, row, name) = (self.scenario, self.p, self.row, self.p.name());
        let npc = PowerId::ALL
            .into_iter()
            .find(|n| state.power(*n).control == Control::Inactive && !state.relations.at_war(p, *n));
        o.summary = format!("{name}: {}", row.text);
        out.push(o);
        if let Some(n) = npc {
            let roll = super::diplomacy::AllianceRoll {
                text: "event: npc alliance",
                rule: "4.72",
                asker: "event",
            };
            super::diplomacy::npc_alliance(scenario, state, p, n, &roll, dice, out)?;
        }
        Ok(true)
    }
}
