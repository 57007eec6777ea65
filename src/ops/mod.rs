//! Operations: one function per command. Commands in `cli` only read
//! arguments and call these; these call `store` for files and the pure
//! core for everything else.
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
pub mod progress;
pub mod resolve;
pub mod run;
pub mod seat;
pub mod send;
pub mod show;
pub mod submit;
pub mod verify;
pub mod workflow;

use crate::scenario;
use anyhow::Result;
use std::path::Path;

/// Everything a command prints on standard output is written here, so an
/// output error (a reader that closed the pipe: `empereur map | head -1`)
/// is an I/O error returned to the caller like any other, not a panic.
pub fn write_out(text: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_fmt(text)?;
    stdout.flush()
}

/// `print!` through [`write_out`]: `out!(...)?`.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::ops::write_out(format_args!($($arg)*))
    };
}

/// `println!` through [`write_out`]: `outln!(...)?`.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::ops::write_out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::ops::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// The output format of `show`, `map` and `status` (`cli` reads it from
/// the command line into this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
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

/// What a command that returns data found: `cli` prints it (its
/// `Display` is the command's whole standard output) and exits with
/// [`Summary::done`]. Printing in one place keeps the operations testable
/// as data (STYLE 1: thin commands).
pub trait Summary: std::fmt::Display {
    fn done(&self) -> Done;
}

/// `empereur scenarios`
pub fn scenarios() -> Result<Done> {
    for name in scenario::embedded_names() {
        crate::outln!("{name}")?;
    }
    Ok(Done::Yes)
}

/// `empereur scenario check DIR`
pub fn scenario_check(dir: &Path) -> Result<Done> {
    let files = crate::store::read_scenario_files(dir)?;
    match scenario::Scenario::load(&files) {
        Ok(s) => {
            crate::outln!(
                "{}: ok ({} provinces, {} sea zones, {} arrows, {} powers, {} minor powers)",
                dir.display(),
                s.map.provinces.len(),
                s.map.seas.len(),
                s.map.arrows.len(),
                s.powers.len(),
                s.minors.len()
            )?;
            crate::out!("{}", house_report(&s.house_values()))?;
            Ok(Done::Yes)
        }
        Err(errs) => {
            for e in &errs {
                crate::outln!("{}/{e}", dir.display())?;
            }
            crate::outln!("{} problem(s)", errs.len())?;
            Ok(Done::No)
        }
    }
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
