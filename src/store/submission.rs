//! Accepted orders of the open phase, one file per power in
//! `phase/orders/<power>.toml`, each with a receipt hash. The latest
//! complete submission replaces the earlier one.
//!
//! The receipt is the SHA-256 (hex) of the stored file's bytes, so anyone
//! holding the file can recompute it (`sha256sum phase/orders/france.toml`);
//! the report of the phase prints it.
#![allow(clippy::disallowed_methods)] // adapter

use super::{GameDir, atomic_write, read_text};
use crate::ids::{PhaseId, PowerId};
use crate::orders::ast::OrderLine;
use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submission {
    pub power: PowerId,
    pub phase: PhaseId,
    /// Who entered it: `mail:<address>` (the player's own mail),
    /// `moderator` (`empereur submit`) or `autoplay` (generated orders).
    pub by: String,
    /// RFC 3339 time of receipt.
    pub received: String,
    #[serde(default)]
    pub entropy: Option<String>,
    /// The mail said `NO ORDERS` / `PASS` (issue 33): the power is in
    /// whatever else it carries (a standing order, say). Written only
    /// when set, so a submission without one keeps its bytes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub passed: bool,
    pub orders: Vec<OrderLine>,
}

impl Submission {
    /// Whether the orders came in the player's own mail: only those add
    /// entropy to the dice (docs/dice.md 2); the others are the moderator's.
    pub fn by_player(&self) -> bool {
        self.by.starts_with("mail:")
    }

    /// Whether it counts the power as in (issue 33): accepted orders for
    /// the phase, or an explicit `NO ORDERS` / `PASS`, whatever else the
    /// mail carried. Standing orders alone do not (they are kept, and
    /// apply, but say nothing of this phase); ENTROPY, press and rejected
    /// lines are never stored as orders.
    pub fn counts_in(&self) -> bool {
        counts_in(&self.orders, self.passed)
    }
}

/// [`Submission::counts_in`] of the orders a submission would store,
/// `passed` if its mail said `PASS`. A submission with no order at all is
/// a pass too (the moderator's `submit` of nothing, and those stored before
/// `passed` was recorded).
pub fn counts_in(orders: &[OrderLine], passed: bool) -> bool {
    passed
        || orders.is_empty()
        || orders
            .iter()
            .any(|l| !matches!(l.order, crate::orders::ast::Order::Standing(_)))
}

/// The file of `power`'s submission in the open phase.
pub fn path(dir: &GameDir, power: PowerId) -> PathBuf {
    dir.phase_orders().join(format!("{}.toml", power.id()))
}

/// The receipt hash of stored bytes: SHA-256, lowercase hex.
pub fn receipt_of(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Store a submission, replacing the power's earlier one; returns the
/// receipt hash (SHA-256 hex of the stored bytes).
pub fn save(dir: &GameDir, sub: &Submission) -> anyhow::Result<String> {
    let text = to_text(sub)?;
    write(dir, sub.power, &text)?;
    Ok(receipt_of(text.as_bytes()))
}

/// The bytes a submission is stored as: the receipt is known before
/// they are written (an ingest batch writes each power's last one once).
pub fn to_text(sub: &Submission) -> anyhow::Result<String> {
    super::to_toml(sub).context("serialising the submission")
}

/// Store `text` (from [`to_text`]) as `power`'s submission, replacing
/// the earlier one.
pub fn write(dir: &GameDir, power: PowerId, text: &str) -> anyhow::Result<()> {
    atomic_write(&path(dir, power), text.as_bytes())
}

/// The receipt of `power`'s stored submission, if there is one.
pub fn receipt(dir: &GameDir, power: PowerId) -> anyhow::Result<Option<String>> {
    let p = path(dir, power);
    if !p.exists() {
        return Ok(None);
    }
    let bytes = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
    Ok(Some(receipt_of(&bytes)))
}

/// Every stored submission of the open phase.
pub fn load_all(dir: &GameDir) -> anyhow::Result<BTreeMap<PowerId, Submission>> {
    let mut out = BTreeMap::new();
    for power in PowerId::ALL {
        let p = path(dir, power);
        if !p.exists() {
            continue;
        }
        let text = read_text(&p)?;
        let sub: Submission =
            toml::from_str(&text).with_context(|| format!("{} is not a valid submission", p.display()))?;
        if sub.power != power {
            bail!("{} holds orders of {}, not {}", p.display(), sub.power, power);
        }
        out.insert(power, sub);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Span;
    use crate::orders::ast::{Order, Standing};
    use crate::state::UnitKey;

    #[test]
    fn saved_submissions_load_back_and_the_receipt_hashes_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = GameDir::new(tmp.path());
        dir.create_layout().unwrap();
        let sub = Submission {
            power: PowerId::France,
            phase: "1805-fall-france".parse().unwrap(),
            by: "moderator".into(),
            received: "2026-11-30T10:00:00Z".into(),
            entropy: None,
            passed: false,
            orders: vec![
                OrderLine {
                    order: Order::Move {
                        corps: vec![UnitKey::corps(PowerId::France.into(), 1)],
                        commander: Some("Napoleon".into()),
                        path: vec!["alsace".into()],
                    },
                    text: "MOVE French corps 1 WITH Napoleon -> Alsace".into(),
                    span: Span::new(3, 1, 30),
                },
                OrderLine {
                    order: Order::Standing(Standing::Withdraw { ratio: None }),
                    text: "STANDING WITHDRAW NEVER".into(),
                    span: Span::new(4, 1, 23),
                },
            ],
        };
        let r = save(&dir, &sub).unwrap();
        let bytes = std::fs::read(path(&dir, PowerId::France)).unwrap();
        assert_eq!(r, receipt_of(&bytes));
        assert_eq!(r.len(), 64);
        assert_eq!(receipt(&dir, PowerId::France).unwrap(), Some(r));
        let all = load_all(&dir).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[&PowerId::France], sub);
        // A later submission replaces the earlier one.
        let later = Submission { orders: vec![], ..sub };
        save(&dir, &later).unwrap();
        assert_eq!(load_all(&dir).unwrap()[&PowerId::France].orders.len(), 0);
    }
}
