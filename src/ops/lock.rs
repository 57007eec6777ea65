//! The orders lock: before a phase is resolved, every player is mailed,
//! for each power, the receipt of the submission that will be resolved
//! and its entropy, the commitment, and whether the moderator entered any
//! orders or dice. So whatever the moderator entered is visible to all
//! before the result; the same lock is kept in the entry (`lock.toml`).
#![allow(clippy::disallowed_methods)] // adapter

use crate::mail::outbox::{self, Addr, OutMail};
use crate::store::GameDir;
use crate::store::history::LockFile;
use anyhow::Result;
use chrono::{DateTime, Utc};

/// The lock as text: the mail body and what players compare.
pub fn render(lock: &LockFile) -> String {
    let mut s = format!(
        "Orders for phase {} of game {} are locked: the phase is resolved with exactly these submissions.\n\n",
        lock.phase, lock.game
    );
    s.push_str(&format!("Dice commitment: {}\n", lock.commitment));
    match &lock.manual_dice {
        Some(list) => s.push_str(&format!(
            "Dice: MANUAL, entered by the moderator (by = \"moderator\"): {list}\n"
        )),
        None => s.push_str("Dice: committed (docs/dice.md)\n"),
    }
    if let (Some(n), Some(r), Some(sig)) = (&lock.beacon, lock.beacon_round, &lock.beacon_signature) {
        s.push_str(&format!(
            "Dice beacon: {n} round {r}, published after the deadline; its signature, folded into the dice key:\n  {sig}\n"
        ));
    }
    if let Some(r) = &lock.redo_of {
        s.push_str(&format!(
            "Re-resolution after an undo: the seed and entropy of history/{r} are kept (same dice for the same purposes).\n"
        ));
    }
    s.push('\n');
    if lock.powers.is_empty() {
        s.push_str("No power has stored orders: every power's standing orders and defaults apply.\n");
    }
    // docs/dice.md 9: said before the result, not only by `verify`.
    if lock.manual_dice.is_none() && lock.beacon.is_none() && lock.powers.values().all(|l| l.entropy.is_empty()) {
        s.push_str(
            "No player's mail adds entropy and there is no beacon: the moderator could know these dice before this lock.\n",
        );
    }
    for (p, l) in &lock.powers {
        let by = if l.by == "moderator" {
            "ENTERED BY THE MODERATOR (by = \"moderator\"; adds no entropy)"
        } else {
            "sent by the player"
        };
        s.push_str(&format!(
            "{}: {by}\n  receipt {}\n  entropy {}\n",
            p.id(),
            l.receipt,
            l.entropy
        ));
    }
    s
}

/// Queue the lock mail to every player and the moderator. The id is
/// stable per lock content, so queuing the same lock twice sends it once.
pub fn queue(dir: &GameDir, lock: &LockFile, now: DateTime<Utc>) -> Result<String> {
    let config = dir.load_config()?;
    let body = render(lock);
    let digest = crate::store::history::sha256_hex(body.as_bytes());
    let mut to: Vec<Addr> = config
        .players
        .iter()
        .map(|p| Addr::new(Some(&p.name), &p.email))
        .collect();
    to.push(Addr::new(Some(&config.moderator.name), &config.moderator.email));
    let m = OutMail {
        id: outbox::stable_id(&["orders-lock", &config.game, &lock.phase.to_string(), &digest]),
        from: Addr::new(Some(&format!("Empereur {}", config.game)), config.mail_address()),
        to,
        cc: vec![],
        subject: format!("Empereur {}: orders for {} are locked", config.game, lock.phase),
        in_reply_to: None,
        body: format!(
            "{body}\nCheck your own receipt against the acknowledgement of your orders. The report that follows reveals the seed.\n"
        ),
        attachments: vec![],
        date: now,
    };
    outbox::queue(dir, &m)?;
    Ok(m.id)
}
