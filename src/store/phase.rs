//! The open phase's dice commitment: `phase/seed` (0600, never mailed
//! before resolution) and `phase/commitment` (public). See docs/dice.md.
#![allow(clippy::disallowed_methods)] // adapter: OS randomness and files

use super::GameDir;
use crate::state::State;

/// Draw a new seed for the open phase of `state`, write it (0600) and its
/// commitment; returns the commitment (hex).
pub fn open(_dir: &GameDir, _state: &State) -> anyhow::Result<String> {
    anyhow::bail!("phase commitments are not written yet")
}

/// The commitment of the open phase, if one was written.
pub fn commitment(_dir: &GameDir) -> anyhow::Result<Option<String>> {
    Ok(None)
}
