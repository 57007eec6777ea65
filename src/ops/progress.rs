//! How far a long run has got (`autoplay` to the end, `verify --replay`,
//! `run --games` over many games). `ops` only says so; `cli` decides
//! whether and how to show it (a bar on a terminal, nothing in cron mail
//! or pipes), so that no terminal is touched here.

/// Told of a long run's steps; every method does nothing by default.
pub trait Progress {
    /// The run has `len` steps; `what` names it for the reader.
    fn start(&mut self, _len: u64, _what: &str) {}
    /// One more step begins.
    fn step(&mut self) {}
    /// The run has finished its steps.
    fn finish(&mut self) {}
}

/// Progress that nobody is shown (tests, and callers other than `cli`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {}
