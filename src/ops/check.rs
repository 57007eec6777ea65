//! `empereur check`: parse and validate an order file offline, against a
//! game directory or a (per-power) state file a player was mailed.

use super::Done;
use crate::diagnostic::{Diagnostic, Problem};
use crate::ids::PowerId;
use crate::orders::{self, Checked};
use crate::scenario::Scenario;
use crate::state::State;
use crate::store::{self, GameDir};
use anyhow::{Context, Result};
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug)]
pub struct CheckArgs {
    /// The game directory (default: the current directory).
    pub game: Option<PathBuf>,
    /// A state file (as mailed to a player) to check against instead of a game.
    pub state: Option<PathBuf>,
    /// With --state: the scenario (embedded name or directory); default: the state's own.
    pub scenario: Option<String>,
    /// The power giving the orders (default: the POWER line).
    pub power: Option<String>,
    /// The order file, or `-` for standard input.
    pub file: String,
}

/// Read an order file (or stdin for `-`); invalid UTF-8 becomes U+FFFD.
pub fn read_orders(file: &str) -> Result<(String, String)> {
    let mut bytes = Vec::new();
    if file == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
        return Ok(("<stdin>".to_string(), String::from_utf8_lossy(&bytes).into_owned()));
    }
    let p = Path::new(file);
    bytes = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
    Ok((file.to_string(), String::from_utf8_lossy(&bytes).into_owned()))
}

pub fn parse_power(p: Option<&str>) -> Result<Option<PowerId>> {
    p.map(|s| s.parse::<PowerId>().map_err(anyhow::Error::msg)).transpose()
}

/// Load (scenario, state) from a game directory.
pub fn load_game(game: &Path) -> Result<(Arc<Scenario>, State)> {
    let dir = GameDir::new(game);
    let config = dir.load_config()?;
    let scenario = dir.load_scenario(&config)?;
    let state = dir.load_state()?;
    state_checked(scenario, state, &dir.state())
}

fn state_checked(scenario: Arc<Scenario>, state: State, path: &Path) -> Result<(Arc<Scenario>, State)> {
    if let Err(errs) = state.check_against(&scenario) {
        let list: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        anyhow::bail!("{}: {}", path.display(), list.join("; "));
    }
    Ok((scenario, state))
}

/// Print the accepted orders and every diagnostic; the text players see.
pub fn report(checked: &Checked, origin: &str, source: &str) -> String {
    let mut out = String::new();
    if !checked.accepted.is_empty() {
        out.push_str(&format!("accepted ({}):\n", checked.accepted.len()));
        for o in &checked.accepted {
            out.push_str(&format!("  {}\n", o.text));
        }
    }
    if !checked.diagnostics.is_empty() {
        out.push('\n');
        let lines = crate::diagnostic::Lines::new(source);
        for d in &checked.diagnostics {
            out.push_str(&d.render_in(origin, &lines));
            out.push('\n');
        }
    }
    let rejected: BTreeSet<usize> = checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.span.line)
        .collect();
    out.push_str(&format!(
        "{} accepted, {} line(s) rejected\n",
        checked.accepted.len(),
        rejected.len()
    ));
    out
}

/// What `check` found: the orders judged, and the text they came from
/// (to render each diagnostic beside its line).
#[derive(Debug)]
pub struct CheckReport {
    pub checked: Checked,
    /// The file name as the user gave it (`<stdin>` for `-`).
    pub origin: String,
    pub source: String,
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&report(&self.checked, &self.origin, &self.source))
    }
}

impl super::Summary for CheckReport {
    fn done(&self) -> Done {
        if self.checked.all_accepted() {
            Done::Yes
        } else {
            Done::No
        }
    }
}

/// Read `a.file` and judge its orders, as a mail would be.
pub fn run(a: &CheckArgs) -> Result<CheckReport> {
    let (scenario, state) = match &a.state {
        Some(file) => {
            let text = store::read_text(file)?;
            let state = State::from_toml(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let scen = a.scenario.clone().unwrap_or_else(|| state.scenario.clone());
            let scenario = store::load_scenario(&scen)?;
            state_checked(scenario, state, file)?
        }
        None => load_game(a.game.as_deref().unwrap_or(Path::new(".")))?,
    };
    let power = parse_power(a.power.as_deref())?;
    let (origin, source) = read_orders(&a.file)?;
    let checked = orders::check(&source, &scenario, &state, power);
    Ok(CheckReport {
        checked,
        origin,
        source,
    })
}

/// Diagnostics that void the whole message: a header that names another
/// game, phase or power, or none that can be read, as ingest refuses such
/// a mail. A power misspelt inside an order (`COOPERATE WITH Austira`)
/// rejects that line only; the rest is stored.
pub fn voids_message(d: &Diagnostic, source: &str) -> bool {
    let header_line = || {
        source
            .lines()
            .nth(d.span.line.saturating_sub(1))
            .and_then(|l| l.split_whitespace().next())
            .is_some_and(|w| w.trim_end_matches(':').eq_ignore_ascii_case("power"))
    };
    d.is_error()
        && match d.code {
            Problem::StalePhase | Problem::WrongGame | Problem::WrongPower | Problem::NoPower | Problem::BadPhase => {
                true
            }
            Problem::UnknownPower => header_line(),
            _ => false,
        }
}
