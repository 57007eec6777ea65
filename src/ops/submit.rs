//! `empereur submit`: the moderator enters a power's orders by hand.
//! Accepted orders replace the power's earlier submission for the open
//! phase; rejected ones are listed and not stored. The same rules as a
//! mail: a header for another game, phase or power voids the message; a
//! bad order line rejects that line only; a message with no accepted
//! order leaves the stored orders as they were.

use super::Done;
use super::check::{CheckReport, load_game, parse_power, read_orders, voids_message};
use crate::ids::PowerId;
use crate::orders;
use crate::store::{GameDir, submission};
use anyhow::Result;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub struct SubmitArgs {
    /// The game directory.
    pub game: PathBuf,
    /// The power whose orders these are.
    pub power: String,
    /// The order file, or `-` for standard input.
    pub file: String,
}

/// What `submit` did with the orders it checked.
#[derive(Debug)]
pub struct Submitted {
    pub check: CheckReport,
    pub stored: Stored,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// The header names another game, phase or power: nothing applies.
    Voided,
    /// No order was accepted: the power's stored orders are unchanged.
    NothingAccepted(PowerId),
    /// The accepted orders replaced the power's submission.
    Orders {
        power: PowerId,
        count: usize,
        path: PathBuf,
        receipt: String,
        /// Proposal notices queued for the powers addressed.
        notices: usize,
        /// An ENTROPY line was given and not kept.
        entropy_dropped: bool,
    },
}

impl fmt::Display for Submitted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.check)?;
        match &self.stored {
            Stored::Voided => writeln!(
                f,
                "nothing stored: the message does not apply to this game, phase or power"
            ),
            Stored::NothingAccepted(power) => writeln!(
                f,
                "nothing stored: no order was accepted, so {}'s stored orders are unchanged",
                power.name()
            ),
            Stored::Orders {
                power,
                count,
                path,
                receipt,
                notices,
                entropy_dropped,
            } => {
                writeln!(f, "stored {count} order(s) for {} in {}", power.name(), path.display())?;
                writeln!(f, "receipt {receipt}")?;
                writeln!(
                    f,
                    "marked as entered by the moderator: these orders add no entropy to the dice"
                )?;
                if *entropy_dropped {
                    writeln!(
                        f,
                        "the ENTROPY line was not kept: only a player's own mail adds entropy (docs/dice.md 2)"
                    )?;
                }
                if *notices > 0 {
                    writeln!(f, "{notices} proposal notice(s) queued for the powers addressed")?;
                }
                Ok(())
            }
        }
    }
}

impl super::Summary for Submitted {
    fn done(&self) -> Done {
        match self.stored {
            Stored::Orders { .. } => super::Summary::done(&self.check),
            Stored::Voided | Stored::NothingAccepted(_) => Done::No,
        }
    }
}

/// Check the orders of `a.file` for `a.power` and store the accepted ones.
pub fn run(a: &SubmitArgs) -> Result<Submitted> {
    let dir = GameDir::new(&a.game);
    let _lock = dir.lock()?;
    let (scenario, state) = load_game(&a.game)?;
    let power = parse_power(Some(&a.power))?.ok_or_else(|| anyhow::anyhow!("--power is required"))?;
    let (origin, source) = read_orders(&a.file)?;
    let checked = orders::check(&source, &scenario, &state, Some(power));
    let done = |checked, stored| Submitted {
        check: CheckReport {
            checked,
            origin,
            source: source.clone(),
        },
        stored,
    };
    if checked.diagnostics.iter().any(|d| voids_message(d, &source)) {
        return Ok(done(checked, Stored::Voided));
    }
    // As by mail: a message with no accepted order is no submission, and
    // the power's stored orders stay as they were.
    if checked.accepted.is_empty() && !checked.all_accepted() {
        return Ok(done(checked, Stored::NothingAccepted(power)));
    }
    let at = super::clock::now()?;
    let now = super::clock::stamp(at);
    let sub = submission::Submission {
        power,
        phase: state.phase,
        by: "moderator".to_string(),
        received: now.clone(),
        // docs/dice.md 2: orders the moderator enters add no entropy, so
        // an ENTROPY line he types is not kept (it could not count).
        entropy: None,
        passed: checked.header.no_orders,
        orders: checked.accepted.clone(),
    };
    let receipt = submission::save(&dir, &sub)?;
    // The recipients of its proposals are told at once (their answer
    // counts only in this phase).
    let config = dir.load_config()?;
    let deadline = super::mailing::open_deadline(&dir, &config, at)?;
    let told = crate::mail::compose::proposal_notices(&dir, &config, &state, power, &sub.orders, deadline, at)?;
    dir.journal_line(
        &now,
        &format!(
            "submit {} {} by moderator: {} order(s), receipt {receipt}",
            state.phase,
            power,
            sub.orders.len()
        ),
    )?;
    let stored = Stored::Orders {
        power,
        count: sub.orders.len(),
        path: submission::path(&dir, power),
        receipt,
        notices: told.len(),
        entropy_dropped: checked.header.entropy.as_deref().is_some_and(|e| !e.is_empty()),
    };
    Ok(done(checked, stored))
}
