//! `empereur ingest`: read messages from a Maildir, an mbox, `.eml`
//! files or standard input into one game (`--game`) or a host of many
//! (`--games`), and answer each. With no source, messages archived but
//! not yet processed (a crash, a failed store) are processed again.

use super::Done;
use crate::mail::ingest::{self, GameCtx, Handled, Host, Run, Verdict};
use anyhow::{Result, bail};
use std::io::Read;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
#[command(
    after_help = "Examples:\n  empereur ingest --game campaign --maildir ~/Maildir/.empereur\n  empereur ingest --game campaign orders.eml\n  formail -s empereur ingest --game campaign -   (one message on stdin)\n  empereur ingest --games /srv/games --mbox /var/mail/empereur\n\nExit code 1 when a message was refused (wrong password, stale phase, …)."
)]
pub struct IngestArgs {
    /// The game directory.
    #[arg(long, short = 'g', conflicts_with = "games")]
    pub game: Option<PathBuf>,
    /// A directory of games: route each message by its GAME line or the
    /// address it was sent to.
    #[arg(long)]
    pub games: Option<PathBuf>,
    /// Read every message of this Maildir (new/ and cur/; nothing is
    /// moved or deleted there).
    #[arg(long)]
    pub maildir: Option<PathBuf>,
    /// Read every message of this mbox file.
    #[arg(long)]
    pub mbox: Option<PathBuf>,
    /// Message files (`.eml`); `-` reads one message from standard input.
    pub files: Vec<PathBuf>,
}

/// The options of an ingest run, with the clock injected.
pub fn run(a: &IngestArgs) -> Result<Done> {
    let handled = ingest(a, chrono::Utc::now())?;
    for h in &handled {
        println!("{}", line(h));
    }
    let refused = handled
        .iter()
        .any(|h| matches!(h.verdict, Verdict::Refused(_) | Verdict::NotStored { .. }));
    Ok(if refused { Done::No } else { Done::Yes })
}

fn line(h: &Handled) -> String {
    let what = match &h.verdict {
        Verdict::Accepted {
            power,
            receipt,
            accepted,
            rejected,
            ..
        } => format!(
            "accepted for {} ({accepted} ok, {rejected} rejected), receipt {}",
            power.id(),
            &receipt[..12.min(receipt.len())]
        ),
        Verdict::Refused(r) => format!("refused: {r}"),
        Verdict::NotStored { power, error } => format!("{} not stored: {error}", power.id()),
        other => other.code().to_string(),
    };
    format!(
        "{} {} {}: {what}",
        &h.hash[..12],
        h.game.as_deref().unwrap_or("-"),
        h.from.as_deref().unwrap_or("-")
    )
}

/// One message to ingest: a file (read when its turn comes) or bytes.
pub enum Source {
    File(PathBuf),
    Bytes(Vec<u8>),
}

impl Source {
    fn read(&self) -> Result<std::borrow::Cow<'_, [u8]>> {
        match self {
            Source::File(p) => Ok(std::fs::read(p)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?
                .into()),
            Source::Bytes(b) => Ok(b.as_slice().into()),
        }
    }
}

/// The messages `a` names.
pub fn sources(a: &IngestArgs) -> Result<Vec<Source>> {
    let mut msgs = Vec::new();
    if let Some(d) = &a.maildir {
        msgs.extend(ingest::maildir_files(d)?.into_iter().map(Source::File));
    }
    if let Some(m) = &a.mbox {
        msgs.extend(ingest::read_mbox(m)?.into_iter().map(Source::Bytes));
    }
    for f in &a.files {
        if f.as_os_str() == "-" {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf)?;
            msgs.push(Source::Bytes(buf));
        } else {
            msgs.push(Source::File(f.clone()));
        }
    }
    Ok(msgs)
}

/// Messages processed between two commits of the journal and the
/// `new/` -> `cur/` moves (see `mail::ingest::Run`).
const BATCH: usize = 256;

/// Ingest everything `a` names at time `now`.
pub fn ingest(a: &IngestArgs, now: chrono::DateTime<chrono::Utc>) -> Result<Vec<Handled>> {
    let msgs = sources(a)?;
    // Archive copies, submissions and replies are made durable together
    // before each batch is marked processed (see `store::durable`).
    let group = crate::store::durable::group();
    let mut run = Run::new(now);
    let mut out = Vec::new();
    match (&a.game, &a.games) {
        (Some(g), None) => {
            let ctx = GameCtx::load(g)?;
            let _lock = ctx.dir.lock()?;
            if msgs.is_empty() {
                out.extend(ingest::ingest_pending(&ctx, &mut run)?);
            }
            for m in &msgs {
                out.push(ingest::ingest_game(&ctx, &m.read()?, &mut run)?);
                if run.batched() >= BATCH {
                    run.flush()?;
                }
            }
            run.flush()?;
        }
        (None, Some(root)) => {
            let host = Host::load(root)?;
            let _locks = host.games.values().map(|g| g.dir.lock()).collect::<Result<Vec<_>>>()?;
            for m in &msgs {
                out.push(ingest::ingest_host(&host, &m.read()?, &mut run)?);
                if run.batched() >= BATCH {
                    run.flush()?;
                }
            }
            run.flush()?;
        }
        _ => bail!("say which game: --game DIR, or --games DIR for a directory of games"),
    }
    drop(run);
    group.commit()?;
    Ok(out)
}
