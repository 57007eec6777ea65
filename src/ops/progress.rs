//! Progress of long work on a terminal (`autoplay` to the end, `verify
//! --replay`, `run --games` over many games): a bar on standard error when
//! standard output is a terminal, nothing at all otherwise, so cron mail
//! and pipes stay as quiet as before (indicatif, with its hidden target).
#![allow(clippy::disallowed_methods)] // adapter: the terminal

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A bar of `len` steps labelled `what`, shown only on a terminal.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    bar_for(len, what, std::io::stdout().is_terminal())
}

/// As [`bar`], saying whether a terminal is there (tests).
pub fn bar_for(len: u64, what: &str, terminal: bool) -> ProgressBar {
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
}
