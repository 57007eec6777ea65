//! `empereur fetch`: pull new mail from the game's IMAP mailbox
//! (`[mail.imap]` in game.toml) and ingest it.

use super::Done;
use crate::mail::ingest::{self, GameCtx, Run, Verdict};
use anyhow::{Result, anyhow};
use std::path::PathBuf;

#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(
    feature = "cli",
    command(
        after_help = "Example:\n  empereur fetch --game campaign\n\ngame.toml:\n  [mail.imap]\n  host = \"imap.example.org\"\n  user = \"empereur@example.org\"\n  password_env = \"EMPEREUR_IMAP_PASSWORD\"\n\nTLS only (port 993). Messages are flagged seen, never deleted.\nWithout IMAP: mbsync or fetchmail into a Maildir, then `empereur ingest --maildir`."
    )
)]
pub struct FetchArgs {
    /// The game directory.
    #[cfg_attr(feature = "cli", arg(long, short = 'g', default_value = "."))]
    pub game: PathBuf,
}

pub fn run(a: &FetchArgs) -> Result<Done> {
    let handled = fetch(a, chrono::Utc::now())?;
    crate::outln!("fetched {} message(s)", handled.len())?;
    let mut ok = true;
    for v in &handled {
        if matches!(v, Verdict::Refused(_) | Verdict::NotStored { .. }) {
            ok = false;
        }
        crate::outln!("  {}", v.code())?;
    }
    Ok(if ok { Done::Yes } else { Done::No })
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
