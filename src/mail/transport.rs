//! Delivering the outbox with lettre: a file directory (default), the
//! local sendmail, or SMTP (STARTTLS or implicit TLS, with
//! authentication; plain SMTP only to a loopback host). A message moves
//! from `outbox/` to `sent/` only after the transport accepted it; a
//! failure leaves it queued with the error recorded. A message whose
//! envelope says `sending` when a run starts was interrupted by a crash
//! after it was handed over: it is held (not sent again) until the
//! moderator releases it with `send --release ID`.

use super::outbox::{self, Envelope};
use crate::store::config::{Security, SmtpConfig, Transport as TransportConfig};
use crate::store::{GameDir, sync_dir};
use anyhow::{Context, Result, anyhow, bail};
use chrono::{DateTime, Utc};
use lettre::Transport as _;
use lettre::address::Envelope as LettreEnvelope;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A configured transport.
pub enum Sender {
    File(lettre::FileTransport, PathBuf),
    Sendmail(lettre::SendmailTransport),
    Smtp(Box<lettre::SmtpTransport>),
}

/// Install rustls' ring provider once (two providers in one binary panic
/// unless one is installed first).
pub fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn secret(env: &Option<String>, file: &Option<String>, base: &Path) -> Result<Option<String>> {
    if let Some(v) = env {
        let s = std::env::var(v).with_context(|| format!("environment variable {v} (the mail password) is not set"))?;
        return Ok(Some(s));
    }
    if let Some(f) = file {
        let p = base.join(f);
        let s = fs::read_to_string(&p).with_context(|| format!("cannot read password file {}", p.display()))?;
        return Ok(Some(s.lines().next().unwrap_or("").to_string()));
    }
    Ok(None)
}

fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Build the transport a game's `[mail.transport]` names.
pub fn sender(dir: &GameDir, cfg: &TransportConfig) -> Result<Sender> {
    match cfg {
        TransportConfig::File { dir: d } => {
            let path = dir.root.join(d.as_deref().unwrap_or("mail/files"));
            fs::create_dir_all(&path).with_context(|| format!("cannot create {}", path.display()))?;
            Ok(Sender::File(lettre::FileTransport::new(&path), path))
        }
        TransportConfig::Sendmail { command } => Ok(Sender::Sendmail(match command {
            Some(c) => lettre::SendmailTransport::new_with_command(c),
            None => lettre::SendmailTransport::new(),
        })),
        TransportConfig::Smtp(s) => Ok(Sender::Smtp(Box::new(smtp(dir, s)?))),
    }
}

fn smtp(dir: &GameDir, s: &SmtpConfig) -> Result<lettre::SmtpTransport> {
    install_crypto();
    let tls = || -> Result<TlsParameters> {
        let name = s.tls_name.clone().unwrap_or_else(|| s.host.clone());
        let mut b = TlsParameters::builder(name);
        if let Some(ca) = &s.ca_file {
            let p = dir.root.join(ca);
            let pem = fs::read(&p).with_context(|| format!("cannot read CA file {}", p.display()))?;
            b = b.add_root_certificate(Certificate::from_pem(&pem).map_err(|e| anyhow!("{}: {e}", p.display()))?);
        }
        b.build_rustls().map_err(|e| anyhow!("TLS set-up for {}: {e}", s.host))
    };
    let (port, mode) = match s.security {
        Security::Starttls => (s.port.unwrap_or(587), Tls::Required(tls()?)),
        Security::Tls => (s.port.unwrap_or(465), Tls::Wrapper(tls()?)),
        Security::Plain => {
            if !is_loopback(&s.host) {
                bail!(
                    "plain SMTP is allowed only to a loopback host (127.0.0.1, ::1, localhost), not '{}'; use security = \"starttls\" or \"tls\"",
                    s.host
                );
            }
            (s.port.unwrap_or(25), Tls::None)
        }
    };
    let mut b = lettre::SmtpTransport::builder_dangerous(s.host.clone())
        .port(port)
        .tls(mode)
        .timeout(Some(Duration::from_secs(s.timeout_secs.unwrap_or(30))));
    if let Some(user) = &s.user {
        let pw = secret(&s.password_env, &s.password_file, &dir.root)?
            .ok_or_else(|| anyhow!("SMTP user '{user}' is set but neither password_env nor password_file"))?;
        b = b.credentials(Credentials::new(user.clone(), pw));
    }
    Ok(b.build())
}

impl Sender {
    /// The server's reply, or (what went wrong, whether the refusal is
    /// permanent: an SMTP 5xx, which sending again will not change).
    fn send_raw(&self, env: &LettreEnvelope, bytes: &[u8]) -> Result<String, (String, bool)> {
        match self {
            Sender::File(t, path) => t
                .send_raw(env, bytes)
                .map(|id| format!("written to {}/{id}.eml", path.display()))
                .map_err(|e| (e.to_string(), false)),
            Sender::Sendmail(t) => t
                .send_raw(env, bytes)
                .map(|_| "sendmail ok".into())
                .map_err(|e| (e.to_string(), false)),
            Sender::Smtp(t) => t
                .send_raw(env, bytes)
                .map(|r| format!("{} {}", r.code(), r.message().collect::<Vec<_>>().join(" ")))
                .map_err(|e| (e.to_string(), e.is_permanent())),
        }
    }
}

/// What happened to one queued message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    Sent {
        id: String,
        reply: String,
    },
    Failed {
        id: String,
        error: String,
    },
    /// Interrupted by a crash during an earlier send: held.
    Held {
        id: String,
    },
    /// Refused for good by the server (SMTP 5xx), now or on an earlier
    /// send: held until `send --release`, never retried on its own.
    Refused {
        id: String,
        error: String,
    },
    /// Refused for good on an earlier send and held since: the moderator
    /// was told then, and `send --release` or `send --drop` settles it;
    /// a run does not report it again.
    StillRefused {
        id: String,
        error: String,
    },
    /// Given up by the moderator (`send --drop`): never sent, recorded in
    /// the journal.
    Dropped {
        id: String,
        to: Vec<String>,
    },
    /// A dead address (a bounce, `mail::dsn`) the moderator dismissed
    /// with `send --drop ADDRESS`: no longer listed.
    Dismissed {
        address: String,
        power: crate::ids::PowerId,
    },
    /// `--dry-run`: would be sent.
    WouldSend {
        id: String,
        to: Vec<String>,
        subject: String,
    },
}

/// Deliver every queued message of `dir`. `release` names held messages
/// the moderator wants sent again. Journal lines go through `journal`.
///
/// The messages of one call go out as a batch with two fsync passes in
/// all, not one per message: every message about to leave is first
/// marked `sending` (with the batch and the machine's boot), one barrier
/// makes the marks (and the queued mail) durable, then they are handed
/// over in queue order, each moved to `sent/` as soon as the server took
/// it, and the end of the run's group commit makes those moves durable.
/// A mark found by a later run ([`interrupted`]) says which message may
/// have left: after a process crash (same boot, every write visible)
/// only the first message of its batch still marked, since later ones
/// were never handed over; after a reboot every one still marked, since
/// a move to `sent/` may not have reached the disk.
pub fn send_all(
    dir: &GameDir,
    sender: Option<&Sender>,
    release: &[String],
    now: DateTime<Utc>,
) -> Result<Vec<Delivery>> {
    let when = now.to_rfc3339();
    cleanup(dir, &when)?;
    let mut out = Vec::new();
    let queued = outbox::queued(dir)?;
    let mut envelopes = Vec::with_capacity(queued.len());
    for id in queued {
        let env: Envelope = outbox::read_envelope(&outbox::env_path(dir, &id))?;
        envelopes.push((id, env));
    }
    let Some(sender) = sender else {
        return Ok(envelopes
            .into_iter()
            .map(|(id, env)| Delivery::WouldSend {
                id,
                to: env.to,
                subject: env.subject,
            })
            .collect());
    };
    let held = interrupted(&envelopes, &crate::store::checkpoint::boot_id());
    let batch = format!(
        "{}/{}/{}",
        crate::store::checkpoint::boot_id(),
        std::process::id(),
        now.timestamp_nanos_opt().unwrap_or_default()
    );
    let mut leaving = Vec::new();
    for (id, mut env) in envelopes {
        if let Some(error) = &env.refused {
            if !release.contains(&id) {
                out.push(Delivery::StillRefused {
                    id,
                    error: error.clone(),
                });
                continue;
            }
            readdress(dir, &mut env, &when)?;
        }
        if held.contains(&id) && !release.contains(&id) {
            dir.journal_line(&when, &format!("send: {id} held: an earlier send was interrupted; it may have been delivered (release with send --release {id})"))?;
            out.push(Delivery::Held { id });
            continue;
        }
        // Refused here, before anything is marked as leaving, as when
        // the message was read here.
        fs::metadata(outbox::eml_path(dir, &id)).with_context(|| format!("cannot read queued message {id}"))?;
        let lenv = lettre_envelope(&env)?;
        env.sending = true;
        env.batch = Some(batch.clone());
        env.refused = None;
        env.attempts += 1;
        outbox::write_envelope(&outbox::env_path(dir, &id), &env)?;
        leaving.push((id, env, lenv));
    }
    // Durable before any message leaves: after a power loss each is held,
    // never sent twice. Also makes the queued mail durable.
    crate::store::durable::barrier()?;
    for (id, env, lenv) in leaving {
        // Read when it leaves, not all at once: a phase's reports with
        // their pictures are megabytes.
        let bytes = fs::read(outbox::eml_path(dir, &id)).with_context(|| format!("cannot read queued message {id}"))?;
        out.push(hand_over(dir, sender, id, env, &lenv, &bytes, now)?);
    }
    Ok(out)
}

/// Give up a queued message the server refused for good (or an
/// interrupted send left held): moved to `sent/` marked as dropped, so
/// that it is neither sent nor queued again, with a journal line.
pub fn drop_message(dir: &GameDir, id: &str, now: DateTime<Utc>) -> Result<Delivery> {
    let when = now.to_rfc3339();
    let env_path = outbox::env_path(dir, id);
    if !outbox::eml_path(dir, id).is_file() {
        bail!(
            "no queued message {id} in {} (`empereur send --dry-run` lists them)",
            dir.outbox().display()
        );
    }
    let mut env = outbox::read_envelope(&env_path)?;
    if env.refused.is_none() && !env.sending {
        bail!("message {id} is neither refused nor held: it will be sent; only a stuck message can be dropped");
    }
    let why = env
        .refused
        .clone()
        .unwrap_or_else(|| "held after an interrupted send".into());
    env.sending = false;
    env.batch = None;
    env.dropped = Some(when.clone());
    outbox::write_envelope(&outbox::sent_env_path(dir, id), &env)?;
    fs::rename(outbox::eml_path(dir, id), outbox::sent_eml_path(dir, id))
        .with_context(|| format!("cannot move {id} to sent/"))?;
    sync_dir(&dir.sent());
    let _ = fs::remove_file(&env_path);
    sync_dir(&dir.outbox());
    dir.journal_line(
        &when,
        &format!(
            "send: {id} to {} dropped by the moderator, never sent ({why})",
            env.to.join(", ")
        ),
    )?;
    Ok(Delivery::Dropped {
        id: id.to_string(),
        to: env.to,
    })
}

/// Before a refused message is released: a recipient whose address is no
/// longer in game.toml (the moderator fixed it) gets the message at the
/// address the player of that name has now, in the envelope and in the
/// message's own header.
fn readdress(dir: &GameDir, env: &mut Envelope, when: &str) -> Result<()> {
    let Ok(config) = dir.load_config() else {
        return Ok(());
    };
    let known = |a: &str| {
        config.players.iter().any(|p| p.email.eq_ignore_ascii_case(a)) || config.moderator.email.eq_ignore_ascii_case(a)
    };
    let Some(name) = env.to_name.clone() else {
        return Ok(());
    };
    let Some(new) = config.players.iter().find(|p| p.name == name).map(|p| p.email.clone()) else {
        return Ok(());
    };
    let mut changed = Vec::new();
    for t in env.to.iter_mut() {
        if !known(t) && !t.eq_ignore_ascii_case(&new) {
            changed.push(std::mem::replace(t, new.clone()));
        }
    }
    if changed.is_empty() {
        return Ok(());
    }
    let eml = outbox::eml_path(dir, &env.id);
    let bytes = fs::read(&eml).with_context(|| format!("cannot read queued message {}", env.id))?;
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(bytes.len());
    let mut head = String::from_utf8_lossy(&bytes[..end]).into_owned();
    for old in &changed {
        head = head.replace(&format!("<{old}>"), &format!("<{new}>"));
    }
    let mut out = head.into_bytes();
    out.extend_from_slice(&bytes[end..]);
    crate::store::atomic_write(&eml, &out)?;
    outbox::write_envelope(&outbox::env_path(dir, &env.id), env)?;
    dir.journal_line(
        when,
        &format!(
            "send: {} readdressed from {} to {new} (game.toml)",
            env.id,
            changed.join(", ")
        ),
    )
}

/// The ids of queued messages an earlier send was interrupted in (see
/// [`send_all`]): of each batch whose marks are from the boot `boot`,
/// the first message (in queue order) still marked; every message still
/// marked otherwise (another boot, no boot known, a mark of an older
/// version without a batch).
fn interrupted(envelopes: &[(String, Envelope)], boot: &str) -> BTreeSet<String> {
    let mut held = BTreeSet::new();
    let mut batches_seen = BTreeSet::new();
    for (id, env) in envelopes.iter().filter(|(_, e)| e.sending) {
        let this_boot = env
            .batch
            .as_deref()
            .and_then(|b| b.split_once('/'))
            .is_some_and(|(b, _)| !boot.is_empty() && b == boot);
        if !this_boot || batches_seen.insert(env.batch.clone()) {
            held.insert(id.clone());
        }
    }
    held
}

/// Hand one message marked `sending` to the transport and record what
/// happened (moved to `sent/`, or its error kept in the outbox).
fn hand_over(
    dir: &GameDir,
    sender: &Sender,
    id: String,
    mut env: Envelope,
    lenv: &LettreEnvelope,
    bytes: &[u8],
    now: DateTime<Utc>,
) -> Result<Delivery> {
    let when = &now.to_rfc3339();
    let env_path = outbox::env_path(dir, &id);
    match sender.send_raw(lenv, bytes) {
        Ok(reply) => {
            env.sending = false;
            env.batch = None;
            env.last_error = None;
            env.sent = Some(when.to_string());
            env.server_reply = Some(reply.clone());
            outbox::write_envelope(&outbox::sent_env_path(dir, &id), &env)?;
            fs::rename(outbox::eml_path(dir, &id), outbox::sent_eml_path(dir, &id))
                .with_context(|| format!("cannot move {id} to sent/"))?;
            sync_dir(&dir.sent());
            crate::store::fault::point(&format!("sent/{id}.eml"))?;
            let _ = fs::remove_file(&env_path);
            sync_dir(&dir.outbox());
            dir.journal_line(when, &format!("send: {id} to {} accepted: {reply}", env.to.join(", ")))?;
            Ok(Delivery::Sent { id, reply })
        }
        Err((error, true)) => {
            // Held: the same server would refuse it again. The
            // moderator is told once (unless the refused mail is the
            // moderator's own: that would only be refused in turn).
            env.sending = false;
            env.batch = None;
            env.last_error = Some(error.clone());
            env.refused = Some(error.clone());
            outbox::write_envelope(&env_path, &env)?;
            dir.journal_line(
                when,
                &format!(
                    "send: {id} to {} refused for good, held (release with send --release {id}): {error}",
                    env.to.join(", ")
                ),
            )?;
            tell_moderator_refused(dir, &env, &error, now)?;
            Ok(Delivery::Refused { id, error })
        }
        Err((error, false)) => {
            env.sending = false;
            env.batch = None;
            env.last_error = Some(error.clone());
            outbox::write_envelope(&env_path, &env)?;
            dir.journal_line(
                when,
                &format!(
                    "send: {id} to {} failed (attempt {}): {error}",
                    env.to.join(", "),
                    env.attempts
                ),
            )?;
            Ok(Delivery::Failed { id, error })
        }
    }
}

/// Queue a note to the moderator that `env` was refused for good.
fn tell_moderator_refused(dir: &GameDir, env: &Envelope, error: &str, now: DateTime<Utc>) -> Result<()> {
    let Ok(config) = dir.load_config() else {
        return Ok(());
    };
    let moderator = &config.moderator.email;
    if env.to.iter().any(|t| t.eq_ignore_ascii_case(moderator)) {
        return Ok(());
    }
    let game = &config.game;
    let body = format!(
        "The mail server refused a message of game {game} for good:\n\n  to: {}\n  subject: {}\n  server: {}\n\nIt is held in the outbox and will not be retried on its own, nor\nreported again. Once the cause is fixed (the player's address in\ngame.toml: the message then goes to the new one; the server's limits),\nsend it again with\n\n  empereur send --game <game dir> --release {id}\n\nor give it up (the journal records it) with\n\n  empereur send --game <game dir> --drop {id}\n",
        super::escape::line(&env.to.join(", "), 500),
        super::escape::line(&env.subject, 300),
        super::escape::line(error, 500),
        id = env.id
    );
    let m = super::compose::game_mail(
        &config,
        outbox::stable_id(&["refused", game, &env.id]),
        vec![super::compose::moderator_addr(&config)],
        format!("Empereur {game}: the mail server refused a message"),
        body,
        now,
    );
    outbox::queue(dir, &m)?;
    Ok(())
}

fn lettre_envelope(env: &Envelope) -> Result<LettreEnvelope> {
    let from = env
        .from
        .parse()
        .map_err(|e| anyhow!("envelope {}: from '{}': {e}", env.id, env.from))?;
    let to = env
        .to
        .iter()
        .map(|t| t.parse().map_err(|e| anyhow!("envelope {}: to '{t}': {e}", env.id)))
        .collect::<Result<Vec<_>>>()?;
    LettreEnvelope::new(Some(from), to).map_err(|e| anyhow!("envelope {}: {e}", env.id))
}

/// Finish a move to `sent/` that a crash interrupted: the message is in
/// `sent/` but its outbox envelope is still there, or the server took it
/// (its `sent/` envelope is written) but it is still in the outbox. The
/// second must not stay queued: its mark would hold it for the
/// moderator, and a copy queued again would send it twice.
fn cleanup(dir: &GameDir, when: &str) -> Result<()> {
    let d = dir.outbox();
    if !d.is_dir() {
        return Ok(());
    }
    for e in fs::read_dir(&d)? {
        let p = e?.path();
        if p.extension().and_then(|x| x.to_str()) != Some("json") {
            continue;
        }
        let Some(id) = p.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let (queued_eml, sent_eml) = (outbox::eml_path(dir, id), outbox::sent_eml_path(dir, id));
        if queued_eml.exists() && outbox::sent_env_path(dir, id).exists() && !sent_eml.exists() {
            fs::rename(&queued_eml, &sent_eml).with_context(|| format!("cannot move {id} to sent/"))?;
            sync_dir(&dir.sent());
            dir.journal_line(
                when,
                &format!("send: {id} was accepted by the server before a run stopped; moved to sent/ now"),
            )?;
        }
        if !queued_eml.exists() && sent_eml.exists() {
            fs::remove_file(&p)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(id: &str, batch: Option<&str>) -> (String, Envelope) {
        let env = Envelope {
            id: id.into(),
            sending: true,
            batch: batch.map(str::to_string),
            ..Envelope::default()
        };
        (id.into(), env)
    }

    #[test]
    fn a_crashed_batch_holds_only_what_may_have_left() {
        let quiet = (
            "q".to_string(),
            Envelope {
                id: "q".into(),
                ..Envelope::default()
            },
        );
        let envs = vec![
            quiet,
            marked("a", Some("boot1/7/1")),
            marked("b", Some("boot1/7/1")),
            marked("c", Some("boot1/7/1")),
            marked("d", Some("boot1/9/2")),
            marked("e", Some("boot0/5/0")),
            marked("f", Some("boot0/5/0")),
            marked("g", None),
        ];
        let held = |boot: &str| interrupted(&envs, boot).into_iter().collect::<Vec<_>>();
        // Same boot: of each batch only the first still marked may have
        // been handed over; the others never were.
        assert_eq!(held("boot1"), ["a", "d", "e", "f", "g"]);
        // Another boot: any move to sent/ may be lost, so every mark holds.
        assert_eq!(held("boot2"), ["a", "b", "c", "d", "e", "f", "g"]);
        // No boot known: the same.
        assert_eq!(held(""), ["a", "b", "c", "d", "e", "f", "g"]);
    }
}
