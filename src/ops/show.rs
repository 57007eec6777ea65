//! `empereur show`: the state, whole or as one power sees it.

use super::Done;
use super::Format;
use crate::ids::PowerId;
use crate::scenario::Scenario;
use crate::state::State;
use crate::store::GameDir;
use anyhow::Result;
use std::path::Path;

pub fn run(game: &Path, power: Option<&str>, format: Format) -> Result<Done> {
    let dir = GameDir::new(game);
    let config = dir.load_config()?;
    let scenario = dir.load_scenario(&config)?;
    let mut state = dir.load_state()?;
    if let Err(errs) = state.validate(&scenario) {
        let list: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        anyhow::bail!("{}: {}", dir.state().display(), list.join("; "));
    }
    if let Some(p) = power {
        let p: PowerId = p.parse().map_err(anyhow::Error::msg)?;
        state = state.view_for(p);
    }
    match format {
        Format::Json => crate::outln!("{}", serde_json::to_string_pretty(&state)?)?,
        Format::Toml => crate::out!("{}", state.to_toml())?,
        Format::Text => crate::out!("{}", to_text(&scenario, &state, power.and_then(PowerId::parse)))?,
    }
    Ok(Done::Yes)
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
            "  {:<10} corps {:>2}  {:<20} {}",
            c.nation.id(),
            c.number,
            name,
            divs
        );
    }
    let _ = writeln!(out, "\nSquadrons:");
    for s in &state.squadrons {
        let loc = match &s.location {
            crate::state::Location::Port(p) => scenario.map.province(p).map(|x| x.name.clone()).unwrap_or(p.clone()),
            crate::state::Location::Sea(z) => scenario.map.sea(z).map(|x| x.name.clone()).unwrap_or(z.clone()),
        };
        let _ = writeln!(out, "  {:<10} squadron {:>2}  {}", s.nation.id(), s.number, loc);
    }
    out
}
