//! 11.8 Alternate dominant powers (EiA option `political`).
//!
//! France and Great Britain start dominant (11.8.4); the state records
//! only changes from that start (`state.dominance.status`).

use crate::ids::PowerId;
use crate::state::State;

/// 11.8.4: France and Great Britain start as dominant powers.
pub fn starts_dominant(p: PowerId) -> bool {
    matches!(p, PowerId::France | PowerId::Britain)
}

/// 11.8.1: whether `p` is a dominant power now.
pub fn is_dominant(state: &State, p: PowerId) -> bool {
    state
        .dominance
        .status
        .get(&p)
        .copied()
        .unwrap_or_else(|| starts_dominant(p))
}
