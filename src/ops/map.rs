//! `empereur map`: the map as text or JSON.

use super::Done;
use super::Format;
use crate::scenario::Scenario;
use anyhow::Result;
use serde_json::json;

pub fn run(scenario: &str, format: Format) -> Result<Done> {
    let s = crate::store::load_scenario(scenario)?;
    match format {
        Format::Json => crate::outln!("{}", serde_json::to_string_pretty(&to_json(&s))?)?,
        Format::Toml => crate::outln!("{}", toml::to_string(&to_json(&s))?)?,
        Format::Text => crate::out!("{}", to_text(&s))?,
    }
    Ok(Done::Yes)
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
