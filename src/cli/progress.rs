//! The progress of long runs as a bar on standard error, shown only when
//! standard output is a terminal, so cron mail and pipes stay as quiet as
//! before (indicatif, with its hidden target).
#![allow(clippy::disallowed_methods)] // adapter: the terminal

use crate::ops::progress::Progress;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A bar for whatever run `ops` starts, or none off a terminal.
pub struct Bar {
    terminal: bool,
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar if standard output is a terminal.
    pub fn on_terminal() -> Bar {
        Bar::for_terminal(std::io::stdout().is_terminal())
    }

    /// As [`Bar::on_terminal`], saying whether a terminal is there (tests).
    pub fn for_terminal(terminal: bool) -> Bar {
        Bar { terminal, bar: None }
    }
}

impl Progress for Bar {
    fn start(&mut self, len: u64, what: &str) {
        self.bar = Some(bar_for(len, what, self.terminal));
    }

    fn step(&mut self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// A bar of `len` steps labelled `what`, hidden off a terminal and for a
/// single step.
fn bar_for(len: u64, what: &str, terminal: bool) -> ProgressBar {
    if !terminal || len < 2 {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len).with_message(what.to_string());
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta})") {
        pb.set_style(style.progress_chars("=> "));
    }
    pb
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_shows_on_a_terminal_only_and_for_more_than_one_step() {
        assert!(bar_for(10, "replay", false).is_hidden());
        assert!(bar_for(1, "replay", true).is_hidden());
        let pb = bar_for(10, "replay", true);
        assert_eq!(pb.length(), Some(10));
        assert_eq!(pb.message(), "replay");
    }

    #[test]
    fn the_bar_follows_the_steps_ops_reports() {
        let mut b = Bar::for_terminal(true);
        b.start(5, "autoplay");
        b.step();
        b.step();
        let shown = b.bar.as_ref().expect("a bar once started");
        assert_eq!((shown.position(), shown.length()), (2, Some(5)));
        b.finish();
        assert!(b.bar.is_none());
        let mut quiet = Bar::for_terminal(false);
        quiet.start(5, "autoplay");
        assert!(quiet.bar.as_ref().is_some_and(ProgressBar::is_hidden));
    }
}
