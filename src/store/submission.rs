//! Accepted orders of the open phase, one file per power in
//! `phase/orders/<power>.toml`, each with a receipt hash. The latest
//! complete submission replaces the earlier one.
#![allow(clippy::disallowed_methods)] // adapter

use super::GameDir;
use crate::ids::{PhaseId, PowerId};
use crate::orders::ast::OrderLine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submission {
    pub power: PowerId,
    pub phase: PhaseId,
    /// Who entered it: `mail:<address>` or `moderator`.
    pub by: String,
    /// RFC 3339 time of receipt.
    pub received: String,
    #[serde(default)]
    pub entropy: Option<String>,
    pub orders: Vec<OrderLine>,
}

/// Store a submission, replacing the power's earlier one; returns the
/// receipt hash (SHA-256 hex of the stored bytes).
pub fn save(_dir: &GameDir, _sub: &Submission) -> anyhow::Result<String> {
    anyhow::bail!("submissions are not stored yet")
}

/// Every stored submission of the open phase.
pub fn load_all(_dir: &GameDir) -> anyhow::Result<BTreeMap<PowerId, Submission>> {
    Ok(BTreeMap::new())
}
