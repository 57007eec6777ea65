//! Operations: one function per command. Commands in `cli` only read
//! arguments and call these; these call `store` for files and the pure
//! core for everything else.
#![allow(clippy::disallowed_methods)] // adapter

pub mod demo;
pub mod fetch;
pub mod ingest;
pub mod map;
pub mod new;
pub mod send;
pub mod show;

use crate::scenario;
use anyhow::Result;
use std::path::Path;

/// How a command ended when it did not fail: yes (exit 0) or a domain
/// "no" (exit 1: orders rejected, a check failed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    Yes,
    No,
}

/// `empereur scenarios`
pub fn scenarios() -> Result<Done> {
    for name in scenario::embedded_names() {
        println!("{name}");
    }
    Ok(Done::Yes)
}

/// `empereur scenario check DIR`
pub fn scenario_check(dir: &Path) -> Result<Done> {
    let files = crate::store::read_scenario_files(dir)?;
    match scenario::Scenario::load(&files) {
        Ok(s) => {
            println!(
                "{}: ok ({} provinces, {} sea zones, {} arrows, {} powers, {} minor powers)",
                dir.display(),
                s.map.provinces.len(),
                s.map.seas.len(),
                s.map.arrows.len(),
                s.powers.len(),
                s.minors.len()
            );
            let house = s.house_values();
            println!("house values ({}):", house.len());
            for h in house {
                println!("  {}: {}: {}", h.file, h.item, h.reason);
            }
            Ok(Done::Yes)
        }
        Err(errs) => {
            for e in &errs {
                println!("{}/{e}", dir.display());
            }
            println!("{} problem(s)", errs.len());
            Ok(Done::No)
        }
    }
}
