//! `empereur submit`: the moderator enters a power's orders by hand.
//! Accepted orders replace the power's earlier submission for the open
//! phase; rejected ones are listed and not stored. The same rules as a
//! mail: a header for another game, phase or power voids the message; a
//! bad order line rejects that line only; a message with no accepted
//! order leaves the stored orders as they were.

use super::Done;
use super::check::{load_game, parse_power, read_orders, report, voids_message};
use crate::orders;
use crate::store::{GameDir, submission};
use anyhow::Result;
use std::path::PathBuf;

#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(
    feature = "cli",
    command(
        after_help = "Example:\n  empereur submit --game campaign --power spain phoned-in.txt\n\nExit codes: 0 every order accepted and stored, 1 some order rejected (the rest stored), 2 operational error."
    )
)]
pub struct SubmitArgs {
    /// The game directory.
    #[cfg_attr(feature = "cli", arg(long, short = 'g', default_value = "."))]
    pub game: PathBuf,
    /// The power whose orders these are.
    #[cfg_attr(feature = "cli", arg(long))]
    pub power: String,
    /// The order file, or `-` for standard input.
    pub file: String,
}

pub fn run(a: &SubmitArgs) -> Result<Done> {
    let dir = GameDir::new(&a.game);
    let _lock = dir.lock()?;
    let (scenario, state) = load_game(&a.game)?;
    let power = parse_power(Some(&a.power))?.ok_or_else(|| anyhow::anyhow!("--power is required"))?;
    let (origin, source) = read_orders(&a.file)?;
    let checked = orders::check(&source, &scenario, &state, Some(power));
    crate::out!("{}", report(&checked, &origin, &source))?;
    if checked.diagnostics.iter().any(|d| voids_message(d, &source)) {
        crate::outln!("nothing stored: the message does not apply to this game, phase or power")?;
        return Ok(Done::No);
    }
    // As by mail: a message with no accepted order is no submission, and
    // the power's stored orders stay as they were.
    if checked.accepted.is_empty() && !checked.all_accepted() {
        crate::outln!(
            "nothing stored: no order was accepted, so {}'s stored orders are unchanged",
            power.name()
        )?;
        return Ok(Done::No);
    }
    let at = super::clock::now()?;
    let now = super::clock::stamp(at);
    let sub = submission::Submission {
        power,
        phase: state.phase,
        by: "moderator".to_string(),
        received: now.clone(),
        entropy: checked.header.entropy.clone(),
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
    crate::outln!(
        "stored {} order(s) for {} in {}",
        sub.orders.len(),
        power.name(),
        submission::path(&dir, power).display()
    )?;
    crate::outln!("receipt {receipt}")?;
    if !told.is_empty() {
        crate::outln!("{} proposal notice(s) queued for the powers addressed", told.len())?;
    }
    Ok(if checked.all_accepted() { Done::Yes } else { Done::No })
}
