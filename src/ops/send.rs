//! `empereur send`: deliver the outbox through the game's transport.

use super::Done;
use crate::mail::transport::{self, Delivery};
use crate::store::GameDir;
use anyhow::{Result, bail};
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct SendArgs {
    /// The game directory (or a host directory of `ingest --games`).
    pub game: PathBuf,
    /// List what would be sent; send nothing.
    pub dry_run: bool,
    /// Send a held message again: one an earlier send was interrupted in
    /// (it may have been delivered once already) or one the server
    /// refused for good (5xx).
    pub release: Vec<String>,
    /// Give up a message the server refused for good (or one held after
    /// an interrupted send): it is never sent, and the journal says so.
    /// An address (with `@`) dismisses that dead address instead (a
    /// bounce reported it, `mail::dsn`).
    pub drop: Vec<String>,
}

/// What `empereur send` did with each queued message, and the players'
/// addresses bounces reported dead (until replaced or dismissed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    pub deliveries: Vec<Delivery>,
    pub dead: Vec<crate::mail::dsn::Dead>,
}

impl std::fmt::Display for Sent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for d in &self.deliveries {
            match d {
                Delivery::Sent { id, reply } => writeln!(f, "sent {id}: {reply}")?,
                Delivery::Failed { id, error } => writeln!(f, "FAILED {id}: {error} (left queued)")?,
                Delivery::Held { id } => writeln!(
                    f,
                    "HELD {id}: an earlier send was interrupted; release with --release {id}"
                )?,
                Delivery::Refused { id, error } | Delivery::StillRefused { id, error } => writeln!(
                    f,
                    "REFUSED {id}: {error} (held; fix the address and --release {id}, or --drop {id})"
                )?,
                Delivery::Dropped { id, to } => writeln!(f, "dropped {id} to {}: never sent", to.join(", "))?,
                Delivery::Dismissed { address, power } => writeln!(
                    f,
                    "dismissed the dead address {address} ({}): no longer listed",
                    power.id()
                )?,
                Delivery::WouldSend { id, to, subject } => {
                    writeln!(f, "would send {id} to {}: {subject}", to.join(", "))?
                }
            }
        }
        if self.deliveries.is_empty() {
            writeln!(f, "outbox empty")?;
        }
        for d in &self.dead {
            writeln!(
                f,
                "DEAD ADDRESS {} ({}): mail to it bounces ({}, {} report(s) since {}); put the player's working address in game.toml, or dismiss it with --drop {}",
                d.address,
                d.power.id(),
                d.status,
                d.reports,
                d.first,
                d.address
            )?;
        }
        Ok(())
    }
}

impl super::Summary for Sent {
    /// No when a message failed, is held or was refused.
    fn done(&self) -> Done {
        let stuck = self.deliveries.iter().any(|d| {
            matches!(
                d,
                Delivery::Failed { .. }
                    | Delivery::Held { .. }
                    | Delivery::Refused { .. }
                    | Delivery::StillRefused { .. }
            )
        });
        if stuck { Done::No } else { Done::Yes }
    }
}

pub fn run(a: &SendArgs) -> Result<Sent> {
    let deliveries = send(a, chrono::Utc::now())?;
    let dir = GameDir::new(&a.game);
    let dead = if dir.config().is_file() {
        crate::mail::dsn::still_dead(&dir, &dir.load_config()?)?
    } else {
        Vec::new()
    };
    Ok(Sent { deliveries, dead })
}

pub fn send(a: &SendArgs, now: chrono::DateTime<chrono::Utc>) -> Result<Vec<Delivery>> {
    let dir = GameDir::new(&a.game);
    let _lock = dir.lock()?;
    let cfg = if dir.config().is_file() {
        dir.load_config()?.mail.transport
    } else {
        Default::default()
    };
    let sender = if a.dry_run {
        None
    } else {
        Some(transport::sender(&dir, &cfg)?)
    };
    // One group commit: the batch's marks share one barrier before the
    // first message leaves, and its moves to `sent/` one at the end.
    let group = crate::store::durable::group();
    let mut out = Vec::new();
    for id in &a.drop {
        if id.contains('@') {
            let Some(d) = crate::mail::dsn::dismiss(&dir, id, now)? else {
                bail!(
                    "no dead address {id} in {} (`empereur status` lists them)",
                    dir.root.join("mail/bounces.toml").display()
                );
            };
            out.push(Delivery::Dismissed {
                address: d.address,
                power: d.power,
            });
            continue;
        }
        out.push(transport::drop_message(&dir, id, now)?);
    }
    out.extend(transport::send_all(&dir, sender.as_ref(), &a.release, now)?);
    group.commit()?;
    Ok(out)
}
