//! `empereur map`: the map as text or JSON, or a game's map as a picture
//! (SVG or PNG, see `crate::picture`).

use crate::picture::Scene;
use crate::scenario::Scenario;
use anyhow::Result;
use serde_json::json;
use std::path::{Path, PathBuf};

/// `empereur map`: a scenario's map, written as text, JSON or TOML.
#[derive(Clone, Debug)]
pub struct MapShown {
    pub scenario: std::sync::Arc<Scenario>,
}

impl std::fmt::Display for MapShown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", to_text(&self.scenario))
    }
}

impl super::Summary for MapShown {}

impl super::Structured for MapShown {
    fn json(&self) -> Result<String> {
        Ok(format!("{}\n", serde_json::to_string_pretty(&to_json(&self.scenario))?))
    }

    fn toml(&self) -> Result<String> {
        Ok(format!("{}\n", toml::to_string(&to_json(&self.scenario))?))
    }
}

pub fn run(scenario: &str) -> Result<MapShown> {
    Ok(MapShown {
        scenario: crate::store::load_scenario(scenario)?,
    })
}

/// The JSON form (contract: provinces, seas, arrows).
pub fn to_json(s: &Scenario) -> serde_json::Value {
    let provinces: Vec<_> = s
        .map
        .provinces
        .iter()
        .map(|p| {
            json!({
                "id": p.id, "name": p.name, "aliases": p.aliases, "econ": p.econ, "pol": p.pol,
                "garrison": p.garrison, "kind": p.kind, "owner": p.owner.id(), "capital": p.capital,
                "white": p.white, "seas": p.seas, "port": p.port, "trade_port": p.trade_port,
                "double_loc": p.double_loc, "region": p.region, "adjacent": p.adjacent,
            })
        })
        .collect();
    let seas: Vec<_> = s
        .map
        .seas
        .iter()
        .map(|z| json!({"id": z.id, "name": z.name, "aliases": z.aliases, "trade": z.trade, "adjacent": z.adjacent}))
        .collect();
    let arrows: Vec<_> = s
        .map
        .arrows
        .iter()
        .map(|a| json!({"from": a.from, "to": a.to, "sea": a.sea, "type": a.kind}))
        .collect();
    json!({"scenario": s.id, "provinces": provinces, "seas": seas, "arrows": arrows})
}

pub fn to_text(s: &Scenario) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} — {} provinces, {} sea zones",
        s.name,
        s.map.provinces.len(),
        s.map.seas.len()
    );
    let _ = writeln!(
        out,
        "\nLegend: name, economic/political value, gN garrison strength, home power\n        (capital; white: a white-named province, immune to attack while a\n        corps holds it, 2.11; port)\n        -> the land provinces next to it (MOVE)\n        ~> the sea zones its port touches (SAIL, squadrons in port)"
    );
    let mut regions: Vec<&str> = s.map.provinces.iter().map(|p| p.region.as_str()).collect();
    regions.sort();
    regions.dedup();
    for r in regions {
        let _ = writeln!(out, "\n[{r}]");
        for p in s.map.provinces.iter().filter(|p| p.region == r) {
            let mut flags = Vec::new();
            if p.capital {
                flags.push("capital");
            }
            if p.white {
                flags.push("white");
            }
            if p.port {
                flags.push("port");
            }
            let flags = if flags.is_empty() {
                String::new()
            } else {
                format!(" ({})", flags.join(", "))
            };
            let _ = writeln!(
                out,
                "  {:<22} {:>2}/{:<2} g{} {}{}",
                p.name,
                p.econ,
                p.pol,
                p.garrison,
                p.owner.id(),
                flags
            );
            let _ = writeln!(out, "      -> {}", p.adjacent.join(", "));
            if p.port && !p.seas.is_empty() {
                let seas: Vec<&str> = p
                    .seas
                    .iter()
                    .map(|z| s.map.sea(z).map(|x| x.name.as_str()).unwrap_or(z))
                    .collect();
                let _ = writeln!(out, "      ~> {}", seas.join(", "));
            }
        }
    }
    let _ = writeln!(out, "\n[seas]");
    for z in &s.map.seas {
        let _ = writeln!(out, "  {:<22} -> {}", z.name, z.adjacent.join(", "));
    }
    if !s.map.arrows.is_empty() {
        let _ = writeln!(out, "\n[crossing arrows]");
        for a in &s.map.arrows {
            let _ = writeln!(out, "  {} <-> {} across {} (type {})", a.from, a.to, a.sea, a.kind);
        }
    }
    out
}

/// What a resolution did, for the map pictures: the phase, the state it
/// started from and its outcomes.
pub struct LastPhase {
    pub phase: String,
    pub before: crate::state::State,
    pub outcomes: Vec<crate::rules::Outcome>,
}

/// The resolution recorded in history entry `entry`, if it is one.
pub fn resolution(dir: &crate::store::GameDir, entry: &str) -> Result<Option<LastPhase>> {
    use crate::store::{self, history};
    let (rec, _) = history::read_entry(dir, entry)?;
    if rec.kind != "resolve" {
        return Ok(None);
    }
    let edir = history::entry_dir(dir, entry);
    let p = edir.join("state-before.toml");
    let before =
        crate::state::State::from_toml(&store::read_text(&p)?).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    let p = edir.join("outcomes.toml");
    let outcomes: history::OutcomesFile =
        toml::from_str(&store::read_text(&p)?).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    Ok(Some(LastPhase {
        phase: rec.phase.to_string(),
        before,
        outcomes: outcomes.outcomes,
    }))
}

/// The picture files `empereur map --game` wrote, one per line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drawn {
    pub files: Vec<PathBuf>,
}

impl std::fmt::Display for Drawn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.files.iter().try_for_each(|p| writeln!(f, "{}", p.display()))
    }
}

impl super::Summary for Drawn {}

/// `empereur map --game DIR [--power P] --svg FILE | --png FILE`: write
/// the picture; returns the files written.
pub fn draw(game: &Path, power: Option<&str>, svg: Option<&Path>, png: Option<&Path>) -> Result<Drawn> {
    if svg.is_none() && png.is_none() {
        anyhow::bail!("map --game draws a picture: give --svg FILE or --png FILE (or both)");
    }
    Ok(Drawn {
        files: picture(game, power, svg, png)?,
    })
}

/// The game's map as a picture, written to the files given: the
/// game's map now, as `power` (or the moderator) sees it, with the moves,
/// battles and sieges of the last resolution. Returns the files written.
pub fn picture(game: &Path, power: Option<&str>, svg: Option<&Path>, png: Option<&Path>) -> Result<Vec<PathBuf>> {
    use crate::store::{GameDir, history};
    let dir = GameDir::new(game);
    let config = dir.load_config()?;
    let scenario = dir.load_scenario(&config)?;
    let state = dir.load_state()?;
    let viewer = match power {
        Some(p) => Some(p.parse::<crate::ids::PowerId>().map_err(anyhow::Error::msg)?),
        None => None,
    };
    let head = history::read_head(&dir)?;
    let last = if head.last.is_empty() {
        None
    } else {
        resolution(&dir, &head.last)?
    };
    let scene = match &last {
        Some(l) => Scene::new(&scenario, &state, Some(&l.before), &l.outcomes, viewer, &l.phase),
        None => Scene::new(&scenario, &state, None, &[], viewer, &state.phase.to_string()),
    };
    let mut written = Vec::new();
    let text = scene.svg()?;
    if let Some(f) = svg {
        crate::store::atomic_write(f, text.as_bytes())?;
        written.push(f.to_path_buf());
    }
    if let Some(f) = png {
        crate::store::atomic_write(f, &crate::picture::png(&text)?)?;
        written.push(f.to_path_buf());
    }
    Ok(written)
}
