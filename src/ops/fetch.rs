//! `empereur fetch`: pull new mail from the game's IMAP mailbox
//! (`[mail.imap]` in game.toml) and ingest it.

use super::Done;
use crate::mail::ingest::{self, GameCtx, Run, Verdict};
use anyhow::{Result, anyhow};
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct FetchArgs {
    /// The game directory.
    pub game: PathBuf,
}

/// What `empereur fetch` did with each new message.
#[derive(Clone, Debug)]
pub struct Fetched {
    pub verdicts: Vec<Verdict>,
}

impl std::fmt::Display for Fetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "fetched {} message(s)", self.verdicts.len())?;
        self.verdicts.iter().try_for_each(|v| writeln!(f, "  {}", v.code()))
    }
}

impl super::Summary for Fetched {
    /// No when a message was refused or could not be stored.
    fn done(&self) -> Done {
        let refused = self
            .verdicts
            .iter()
            .any(|v| matches!(v, Verdict::Refused(_) | Verdict::NotStored { .. }));
        if refused { Done::No } else { Done::Yes }
    }
}

pub fn run(a: &FetchArgs) -> Result<Fetched> {
    Ok(Fetched {
        verdicts: fetch(a, chrono::Utc::now())?,
    })
}

/// Fetch and ingest; returns each message's verdict.
pub fn fetch(a: &FetchArgs, now: chrono::DateTime<chrono::Utc>) -> Result<Vec<Verdict>> {
    let ctx = GameCtx::load(&a.game)?;
    let _lock = ctx.dir.lock()?;
    let imap = ctx
        .config
        .mail
        .imap
        .clone()
        .ok_or_else(|| anyhow!("{} has no [mail.imap] table", ctx.dir.config().display()))?;
    let mut run = Run::new(now);
    let mut out = Vec::new();
    crate::mail::fetch::fetch_new(&imap, &ctx.dir.root, |raw| {
        out.push(ingest::ingest_game(&ctx, raw, &mut run)?.verdict);
        // Commit before the message is flagged seen on the server.
        run.flush()
    })?;
    Ok(out)
}
