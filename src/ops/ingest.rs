//! `empereur ingest`: read messages from a Maildir, an mbox, `.eml`
//! files or standard input into one game (`--game`) or a host of many
//! (`--games`), and answer each. With no source, messages archived but
//! not yet processed (a crash, a failed store) are processed again.
//!
//! The game is locked before its state is read, so a message is always
//! checked against the phase it will be stored in.
//!
//! One message on standard input (`-`, as a mail server's pipe delivers
//! it) follows `sysexits.h`: the message is archived before any lock is
//! needed; once archived and answered (accepted or refused) the exit is
//! 0, since the reply is the answer and the server must not bounce it too;
//! a game locked for longer than `EMPEREUR_LOCK_WAIT` seconds (default
//! 60), or a message that could not even be archived, exits 75
//! (`EX_TEMPFAIL`): the server keeps the message and tries again.

use super::Done;
use crate::mail::ingest::{self, GameCtx, Handled, Host, Run, Verdict};
use crate::store::GameDir;
use anyhow::{Result, bail};
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct IngestArgs {
    /// The game directory.
    pub game: Option<PathBuf>,
    /// A directory of games: route each message by its GAME line or the
    /// address it was sent to.
    pub games: Option<PathBuf>,
    /// Read every message of this Maildir (new/ and cur/; nothing is
    /// moved or deleted there).
    pub maildir: Option<PathBuf>,
    /// Read every message of this mbox file.
    pub mbox: Option<PathBuf>,
    /// Message files (`.eml`); `-` reads one message from standard input.
    pub files: Vec<PathBuf>,
}

/// What `empereur ingest` did with each message.
#[derive(Clone, Debug)]
pub struct Ingested {
    pub handled: Vec<Handled>,
    /// How the messages came: from files and mailboxes, or one message
    /// from a mail server's pipe.
    pub arrival: Arrival,
}

/// Where `ingest` read its messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arrival {
    Files,
    /// A mail server's pipe. `retry`: why the server should keep the
    /// message and try again later (exit 75), if it should.
    Pipe {
        retry: Option<String>,
    },
}

impl std::fmt::Display for Ingested {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.handled.iter().try_for_each(|h| writeln!(f, "{}", line(h)))
    }
}

impl super::Summary for Ingested {
    /// From files: no when a message was refused or not stored. From a
    /// pipe (sysexits): yes once the message is archived and answered,
    /// try again later otherwise.
    fn done(&self) -> Done {
        match &self.arrival {
            Arrival::Pipe { retry: Some(_) } => Done::TempFail,
            Arrival::Pipe { retry: None } => Done::Yes,
            Arrival::Files => {
                let refused = self.handled.iter().any(|h| {
                    matches!(
                        h.verdict,
                        Verdict::Refused(_)
                            | Verdict::NotStored { .. }
                            | Verdict::Empty { .. }
                            | Verdict::Quarantined { .. }
                    )
                });
                if refused { Done::No } else { Done::Yes }
            }
        }
    }

    fn stderr(&self) -> String {
        match &self.arrival {
            Arrival::Pipe { retry: Some(why) } => format!("error: {why}\n"),
            _ => String::new(),
        }
    }

    /// The piped message is archived and answered: a closed standard
    /// output must not make the server deliver it again.
    fn output_optional(&self) -> bool {
        matches!(self.arrival, Arrival::Pipe { .. })
    }
}

/// `empereur ingest`.
pub fn run(a: &IngestArgs) -> Result<Ingested> {
    if is_pipe(a) {
        return Ok(pipe(a));
    }
    Ok(Ingested {
        handled: ingest(a, super::clock::now()?)?,
        arrival: Arrival::Files,
    })
}

/// One message on standard input and nothing else: a mail server's pipe.
fn is_pipe(a: &IngestArgs) -> bool {
    a.maildir.is_none() && a.mbox.is_none() && a.files.len() == 1 && a.files[0].as_os_str() == "-"
}

/// How long a piped message waits for a locked game.
fn lock_wait() -> Duration {
    let secs = std::env::var("EMPEREUR_LOCK_WAIT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(60);
    Duration::from_secs(secs)
}

/// Pipe delivery with sysexits: 0 once the message is archived and
/// answered, 75 when the server should keep it and retry.
fn pipe(a: &IngestArgs) -> Ingested {
    let retry = |why: String| Ingested {
        handled: Vec::new(),
        arrival: Arrival::Pipe { retry: Some(why) },
    };
    let mut raw = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut raw) {
        return retry(format!(
            "cannot read the message from standard input: {e}; try again later"
        ));
    }
    let result = super::clock::now().and_then(|now| {
        // Archived first, with no lock: from here on nothing is lost.
        let inbox = match (&a.game, &a.games) {
            (Some(g), None) => GameDir::new(g).inbox(),
            (None, Some(root)) => GameDir::new(root).inbox(),
            _ => bail!("say which game: --game DIR, or --games DIR for a directory of games"),
        };
        crate::mail::archive::archive(&inbox, &raw)?;
        ingest_sources(a, vec![Source::Bytes(raw)], now, lock_wait())
    });
    match result {
        Ok(handled) => Ingested {
            handled,
            arrival: Arrival::Pipe { retry: None },
        },
        Err(e) => retry(format!("{e:#}; the mail server should try again later")),
    }
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
#[derive(Clone, Debug)]
pub enum Source {
    File(PathBuf),
    Bytes(Vec<u8>),
}

impl Source {
    pub fn read(&self) -> Result<std::borrow::Cow<'_, [u8]>> {
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
    ingest_sources(a, sources(a)?, now, Duration::ZERO)
}

/// Ingest `msgs` into the game(s) `a` names, waiting up to `wait` for
/// each game's lock. The lock is taken before anything of the game is
/// read.
pub fn ingest_sources(
    a: &IngestArgs,
    msgs: Vec<Source>,
    now: chrono::DateTime<chrono::Utc>,
    wait: Duration,
) -> Result<Vec<Handled>> {
    // Archive copies, submissions and replies are made durable together
    // before each batch is marked processed (see `store::durable`).
    let group = crate::store::durable::group();
    let mut run = Run::new(now);
    // Files named one by one (a quarantined message among them) are
    // processed again; a Maildir, an mbox or a mail server's pipe
    // delivers again what was seen before.
    run.retry_quarantined = a.maildir.is_none() && a.mbox.is_none() && a.files.iter().all(|f| f.as_os_str() != "-");
    let mut out = Vec::new();
    match (&a.game, &a.games) {
        (Some(g), None) => {
            let _lock = GameDir::new(g).lock_within(wait)?;
            let ctx = GameCtx::load(g)?;
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
            let _locks = ingest::game_dirs(root)?
                .iter()
                .map(|g| GameDir::new(g).lock_within(wait))
                .collect::<Result<Vec<_>>>()?;
            let host = Host::load(root)?;
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
