//! The orders lock: for each power, the receipt of the submission the
//! phase was resolved with and its entropy, the commitment, and whether
//! the moderator entered any orders or dice. Kept in the entry
//! (`lock.toml`, which `verify` checks) and shown to every player and
//! the moderator in the report of the phase (`ops::mailing`), so
//! whatever the moderator entered is seen by all.
#![allow(clippy::disallowed_methods)] // adapter

use crate::store::history::LockFile;

/// The lock as text: the mail body and what players compare.
pub fn render(lock: &LockFile) -> String {
    let mut s = format!(
        "Orders for phase {} of game {} were locked: the phase was resolved with exactly these submissions.\n\n",
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
