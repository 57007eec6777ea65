//! The quarantine: messages that were archived but cannot be answered or
//! processed (a sender address no server will take, a message whose
//! processing failed), kept as `mail/quarantine/<sha256>.eml` with the
//! reason in `<sha256>.reason` beside it. No single message may stop
//! processing: the message is put aside, marked processed in the inbox,
//! journalled, and the moderator is told once (the reason file existing
//! means the moderator was told). `ingest --game DIR
//! mail/quarantine/<sha256>.eml` processes it again once the cause is
//! fixed.

use super::outbox::{self, Addr, OutMail};
use crate::store::{GameDir, atomic_write_mode};
use anyhow::Result;
use chrono::{DateTime, Utc};
use std::path::PathBuf;

/// The quarantine folder of a game (or of a host of games).
pub fn folder(dir: &GameDir) -> PathBuf {
    dir.root.join("mail").join("quarantine")
}

fn reason_path(dir: &GameDir, hash: &str) -> PathBuf {
    folder(dir).join(format!("{hash}.reason"))
}

/// Whether a message is in quarantine (not yet released).
pub fn holds(dir: &GameDir, hash: &str) -> bool {
    reason_path(dir, hash).exists()
}

/// Put a message aside with its reason. Returns whether it is new there
/// (so the moderator is told once, not on every run).
pub fn put(dir: &GameDir, raw: &[u8], hash: &str, reason: &str, now: DateTime<Utc>) -> Result<bool> {
    if holds(dir, hash) {
        return Ok(false);
    }
    let f = folder(dir);
    atomic_write_mode(&f.join(format!("{hash}.eml")), raw, Some(0o600))?;
    let text = format!("{}\n{}\n", now.to_rfc3339(), clean(reason));
    atomic_write_mode(&reason_path(dir, hash), text.as_bytes(), Some(0o600))?;
    Ok(true)
}

/// A message processed again from the quarantine: its reason file is
/// renamed `.released` (the copy stays, nothing is deleted).
pub fn release(dir: &GameDir, hash: &str) -> Result<()> {
    let from = reason_path(dir, hash);
    if from.exists() {
        std::fs::rename(&from, folder(dir).join(format!("{hash}.released")))?;
    }
    Ok(())
}

/// The reason as one line of plain text.
fn clean(reason: &str) -> String {
    super::escape::line(reason, 500)
}

/// Tell the moderator (`to`) that a message was put aside. Queued with a
/// stable id, so it goes once per message.
pub fn tell_moderator(
    dir: &GameDir,
    from: &Addr,
    to: &Addr,
    game: &str,
    hash: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<String> {
    let body = format!(
        "A message to game {game} could not be answered or processed and was put aside:\n\n  {}\n\nIt is kept as mail/quarantine/{hash}.eml (the reason beside it);\nnothing was stored as orders and no reply was sent. Once the cause is\nfixed, process it again with\n\n  empereur ingest --game <game dir> mail/quarantine/{hash}.eml\n",
        clean(reason)
    );
    let m = OutMail {
        id: outbox::stable_id(&["quarantine", game, hash]),
        from: from.clone(),
        to: vec![to.clone()],
        cc: vec![],
        subject: format!("Empereur {game}: a message was quarantined"),
        in_reply_to: None,
        body,
        attachments: vec![],
        date: now,
    };
    outbox::queue(dir, &m)?;
    Ok(m.id)
}
