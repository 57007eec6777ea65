//! Operations: one function per command. Commands in `cli` only read
//! arguments into an options struct and call these; these call `store`
//! for files and the pure core for everything else, and return what they
//! found (a [`Summary`]), which `cli` prints. Nothing here writes to the
//! terminal: long runs tell a [`progress::Progress`] that `cli` hands them
//! how far they have got, and `cli` draws the bar.
#![allow(clippy::disallowed_methods)] // adapter

pub mod autoplay;
pub mod balance;
pub mod beacon;
pub mod check;
pub mod clock;
pub mod demo;
pub mod dice_cmd;
pub mod export;
pub mod fetch;
pub mod games;
pub mod ingest;
pub mod lock;
pub mod mailing;
pub mod map;
pub mod moderate;
pub mod new;
pub mod physical_dice;
pub mod progress;
pub mod resolve;
pub mod run;
pub mod seat;
pub mod send;
pub mod show;
pub mod site;
pub mod submit;
pub mod verify;
pub mod workflow;

use crate::scenario;
use anyhow::Result;
use std::path::Path;

/// The output format of `show`, `map` and `games` (`cli` reads it from
/// the command line into this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Toml,
}

/// How a command ended when it did not fail: yes (exit 0) or a domain
/// "no" (exit 1: orders rejected, a check failed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    Yes,
    No,
    /// Try again later: exit 75 (`EX_TEMPFAIL` of sysexits.h), which a
    /// mail server delivering by pipe reads as "keep the message, retry".
    TempFail,
}

/// What a command found: `cli` prints it (its `Display` is the command's
/// whole standard output) and exits with [`Summary::done`]. Printing in
/// one place keeps the operations testable as data (STYLE 1: thin
/// commands), and a closed pipe is an I/O error of that one writer.
pub trait Summary: std::fmt::Display {
    fn done(&self) -> Done {
        Done::Yes
    }

    /// What goes to standard error beside the output (a refusal, a note
    /// for the moderator); empty for most commands.
    fn stderr(&self) -> String {
        String::new()
    }

    /// An operational failure found after the output was made (a game of
    /// several that could not be read, a delivery that failed after the
    /// mail was queued): `cli` writes the output, then this as the error
    /// (exit 2).
    fn failure(&self) -> Option<String> {
        None
    }

    /// Whether the command has done its work whatever becomes of its
    /// output, so that an error writing it changes nothing (a mail
    /// server's pipe reads only the exit code).
    fn output_optional(&self) -> bool {
        false
    }
}

/// A summary that can also be written as JSON or TOML (`--format`); each
/// form is the command's whole standard output.
pub trait Structured: Summary {
    fn json(&self) -> Result<String>;
    fn toml(&self) -> Result<String>;
}

/// `empereur scenarios`: the embedded scenario names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenarios {
    pub names: Vec<String>,
}

impl std::fmt::Display for Scenarios {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.names.iter().try_for_each(|n| writeln!(f, "{n}"))
    }
}

impl Summary for Scenarios {}

/// `empereur scenarios`
pub fn scenarios() -> Scenarios {
    Scenarios {
        names: scenario::embedded_names(),
    }
}

/// What `empereur scenario check DIR` found.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioChecked {
    pub dir: std::path::PathBuf,
    pub found: Result<ScenarioCounts, Vec<String>>,
}

/// The size of a scenario that loads, and its house values.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioCounts {
    pub provinces: usize,
    pub seas: usize,
    pub arrows: usize,
    pub powers: usize,
    pub minors: usize,
    pub house: Vec<scenario::HouseValue>,
}

impl std::fmt::Display for ScenarioChecked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dir = self.dir.display();
        match &self.found {
            Ok(c) => {
                writeln!(
                    f,
                    "{dir}: ok ({} provinces, {} sea zones, {} arrows, {} powers, {} minor powers)",
                    c.provinces, c.seas, c.arrows, c.powers, c.minors
                )?;
                write!(f, "{}", house_report(&c.house))
            }
            Err(errs) => {
                for e in errs {
                    writeln!(f, "{dir}/{e}")?;
                }
                writeln!(f, "{} problem(s)", errs.len())
            }
        }
    }
}

impl Summary for ScenarioChecked {
    fn done(&self) -> Done {
        if self.found.is_ok() { Done::Yes } else { Done::No }
    }
}

/// `empereur scenario check DIR`
pub fn scenario_check(dir: &Path) -> Result<ScenarioChecked> {
    let files = crate::store::read_scenario_files(dir)?;
    let found = match scenario::Scenario::load(&files) {
        Ok(s) => Ok(ScenarioCounts {
            provinces: s.map.provinces.len(),
            seas: s.map.seas.len(),
            arrows: s.map.arrows.len(),
            powers: s.powers.len(),
            minors: s.minors.len(),
            house: s.house_values(),
        }),
        Err(errs) => Err(errs.iter().map(|e| e.to_string()).collect()),
    };
    Ok(ScenarioChecked {
        dir: dir.to_path_buf(),
        found,
    })
}

/// The house values of a scenario, grouped by file and reason so a
/// moderator sees at a glance which printed values to type in.
pub fn house_report(house: &[scenario::HouseValue]) -> String {
    use std::fmt::Write;
    let mut groups: Vec<((&str, &str), Vec<&str>)> = Vec::new();
    for h in house {
        let key = (h.file.as_str(), h.reason.as_str());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, items)) => items.push(&h.item),
            None => groups.push((key, vec![&h.item])),
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "house values ({}):", house.len());
    for ((file, reason), items) in groups {
        let _ = writeln!(out, "  {file}: house: {reason} [{}]", items.len());
        let _ = writeln!(out, "      {}", items.join(", "));
    }
    out
}
