//! `empereur show`: the state, whole or as one power sees it.

use super::Format;
use crate::ids::PowerId;
use crate::orders::ast::OrderLine;
use crate::scenario::Scenario;
use crate::state::State;
use crate::store::GameDir;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

/// What `empereur show` found: the state as the viewer may see it.
#[derive(Clone, Debug)]
pub struct Shown {
    pub scenario: std::sync::Arc<Scenario>,
    /// The whole state, or `viewer`'s view of it.
    pub state: State,
    pub viewer: Option<PowerId>,
    /// The stored orders of the open phase, read only for the text form
    /// (its list of pending proposals).
    pub orders: Option<BTreeMap<PowerId, Vec<OrderLine>>>,
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let none = BTreeMap::new();
        write!(
            f,
            "{}{}",
            to_text(&self.scenario, &self.state, self.viewer),
            proposals_text(&self.state, self.orders.as_ref().unwrap_or(&none), self.viewer)
        )
    }
}

impl super::Summary for Shown {}

impl super::Structured for Shown {
    fn json(&self) -> Result<String> {
        Ok(format!("{}\n", serde_json::to_string_pretty(&self.state)?))
    }

    fn toml(&self) -> Result<String> {
        Ok(self.state.to_toml())
    }
}

pub fn run(game: &Path, power: Option<&str>, format: Format) -> Result<Shown> {
    let dir = GameDir::new(game);
    let config = dir.load_config()?;
    let scenario = dir.load_scenario(&config)?;
    let mut state = dir.load_state()?;
    if let Err(errs) = state.check_against(&scenario) {
        let list: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        anyhow::bail!("{}: {}", dir.state().display(), list.join("; "));
    }
    if let Some(p) = power {
        let p: PowerId = p.parse().map_err(anyhow::Error::msg)?;
        state = state.view_for(p);
    }
    let orders = match format {
        Format::Json | Format::Toml => None,
        Format::Text => Some(
            crate::store::submission::load_all(&dir)?
                .into_iter()
                .filter(|(_, s)| s.phase == state.phase)
                .map(|(p, s)| (p, s.orders))
                .collect(),
        ),
    };
    Ok(Shown {
        scenario,
        state,
        viewer: power.and_then(PowerId::parse),
        orders,
    })
}

/// A plain-text summary of the state, 72 columns.
pub fn to_text(scenario: &Scenario, state: &State, viewer: Option<PowerId>) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "Game {} ({}), phase {}", state.game, scenario.name, state.phase);
    if let Some(v) = viewer {
        let _ = writeln!(out, "As seen by {}", v.name());
    }
    let _ = writeln!(out, "\n{:<16} {:<22} {:>6} {:>6}", "Power", "Status", "Gold", "VP");
    for (p, ps) in &state.powers {
        let status = match &ps.control {
            crate::state::Control::Player => "player".to_string(),
            crate::state::Control::Inactive => "NPC, inactive".to_string(),
            crate::state::Control::Controlled { by } => format!("NPC, run by {by}"),
            crate::state::Control::Allied { with } => format!("NPC, allied to {with}"),
        };
        let _ = writeln!(out, "{:<16} {:<22} {:>6} {:>6}", p.name(), status, ps.gold, ps.vp);
    }
    if !state.relations.wars.is_empty() {
        let wars: Vec<String> = state
            .relations
            .wars
            .iter()
            .map(|w| format!("{}–{}", w[0], w[1]))
            .collect();
        let _ = writeln!(out, "\nAt war: {}", wars.join(", "));
    }
    if !state.relations.alliances.is_empty() {
        let al: Vec<String> = state
            .relations
            .alliances
            .iter()
            .map(|w| format!("{}–{}", w[0], w[1]))
            .collect();
        let _ = writeln!(out, "Allied: {}", al.join(", "));
    }
    let _ = writeln!(out, "\nCorps:");
    for c in &state.corps {
        let Some(loc) = &c.location else { continue };
        let name = scenario.map.province(loc).map(|p| p.name.as_str()).unwrap_or(loc);
        let divs = if c.divisions.is_empty() {
            "(composition hidden)".to_string()
        } else {
            c.divisions.iter().map(|d| d.arm.short()).collect::<Vec<_>>().join(" ")
        };
        let _ = writeln!(
            out,
            "  {:<10} corps {:>2}  {:<20} {divs}{}",
            c.nation.id(),
            c.number,
            name,
            seed_name(scenario, &c.key())
        );
    }
    let _ = writeln!(out, "\nSquadrons:");
    for s in &state.squadrons {
        let loc = match &s.location {
            crate::state::Location::Port(p) => scenario.map.province(p).map(|x| x.name.clone()).unwrap_or(p.clone()),
            crate::state::Location::Sea(z) => scenario.map.sea(z).map(|x| x.name.clone()).unwrap_or(z.clone()),
        };
        let key = crate::state::UnitKey::squadron(s.nation.clone(), s.number);
        let _ = writeln!(
            out,
            "  {:<10} squadron {:>2}  {loc}{}",
            s.nation.id(),
            s.number,
            seed_name(scenario, &key)
        );
    }
    // Where each commander stands: WITH names them (Napoleon, 4.22).
    let _ = writeln!(out, "\nCommanders:");
    for c in &state.commanders {
        let place = match (&c.location, &c.arrives) {
            (Some(l), _) => scenario.map.province(l).map(|p| p.name.clone()).unwrap_or(l.clone()),
            (None, Some(t)) => format!("arrives {t}"),
            (None, None) => "not on the map".to_string(),
        };
        let _ = writeln!(
            out,
            "  {:<10} {:<20} rating {}{}  {place}",
            c.nation.id(),
            c.name,
            c.rating,
            if c.primary { " (primary)" } else { "" }
        );
    }
    let _ = writeln!(out, "\nProvinces (controller, garrison):");
    for p in &scenario.map.provinces {
        let ps = state.provinces.get(&p.id);
        let controller = ps
            .and_then(|x| x.controller.as_ref())
            .map(|n| n.id().to_string())
            .unwrap_or_else(|| "-".to_string());
        let garrison = match ps.and_then(|x| x.garrison.as_ref()) {
            Some(g) => format!("  garrison {}", g.nation.id()),
            None => String::new(),
        };
        let rebellion = if ps.is_some_and(|x| x.rebellion) {
            "  in rebellion"
        } else {
            ""
        };
        let _ = writeln!(out, "  {:<22} {controller}{garrison}{rebellion}", p.name);
    }
    out
}

/// The diplomatic proposals pending in the open phase (the stored orders
/// `orders`): all of them for the moderator, those from or to `viewer`
/// as that power reads them.
pub fn proposals_text(
    state: &State,
    orders: &std::collections::BTreeMap<PowerId, Vec<crate::orders::ast::OrderLine>>,
    viewer: Option<PowerId>,
) -> String {
    let phase = state.phase.to_string();
    let lines: Vec<String> = crate::report::proposals(orders)
        .iter()
        .filter_map(|p| match viewer {
            Some(v) if v == p.from || v == p.to => Some(p.line_for(v, &phase)),
            Some(_) => None,
            None => Some(format!(
                "{} to {}: {} ({})",
                p.from.name(),
                p.to.name(),
                p.text,
                match (&p.answered, p.answers.is_empty()) {
                    (_, true) => "needs no answer".to_string(),
                    (Some(a), false) => a.clone(),
                    (None, false) => "no answer yet".to_string(),
                }
            )),
        })
        .collect();
    let mut out = String::from("\nPending proposals:\n");
    if lines.is_empty() {
        out.push_str("  none\n");
    }
    for l in lines {
        out.push_str(&format!("  {l}\n"));
    }
    out
}

/// "  (Hesse corps)" for a kingdom's own counter (11.2.2.1, 11.2.2.2,
/// 11.3.2.1, 11.5.2.1: the seed's name from its table row), else nothing.
fn seed_name(scenario: &Scenario, key: &crate::state::UnitKey) -> String {
    key.seed_name(scenario).map(|n| format!("  ({n})")).unwrap_or_default()
}
