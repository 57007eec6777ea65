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
    /// `--dry-run`: would be sent.
    WouldSend {
        id: String,
        to: Vec<String>,
        subject: String,
    },
}

/// Deliver every queued message of `dir`. `release` names held messages
/// the moderator wants sent again. Journal lines go through `journal`.
pub fn send_all(
    dir: &GameDir,
    sender: Option<&Sender>,
    release: &[String],
    now: DateTime<Utc>,
) -> Result<Vec<Delivery>> {
    let when = now.to_rfc3339();
    cleanup(dir)?;
    let mut out = Vec::new();
    for id in outbox::queued(dir)? {
        let env_path = outbox::env_path(dir, &id);
        let mut env: Envelope = outbox::read_envelope(&env_path)?;
        let Some(sender) = sender else {
            out.push(Delivery::WouldSend {
                id: id.clone(),
                to: env.to.clone(),
                subject: env.subject.clone(),
            });
            continue;
        };
        if let Some(error) = &env.refused
            && !release.contains(&id)
        {
            out.push(Delivery::Refused {
                id,
                error: error.clone(),
            });
            continue;
        }
        if env.sending && !release.contains(&id) {
            dir.journal_line(&when, &format!("send: {id} held: an earlier send was interrupted; it may have been delivered (release with send --release {id})"))?;
            out.push(Delivery::Held { id });
            continue;
        }
        let bytes = fs::read(outbox::eml_path(dir, &id)).with_context(|| format!("cannot read queued message {id}"))?;
        let lenv = lettre_envelope(&env)?;
        env.sending = true;
        env.refused = None;
        env.attempts += 1;
        outbox::write_envelope(&env_path, &env)?;
        // Durable before the message leaves: after a power loss it is
        // held, never sent twice. Also makes the queued mail durable.
        crate::store::durable::barrier()?;
        match sender.send_raw(&lenv, &bytes) {
            Ok(reply) => {
                env.sending = false;
                env.last_error = None;
                env.sent = Some(when.clone());
                env.server_reply = Some(reply.clone());
                outbox::write_envelope(&outbox::sent_env_path(dir, &id), &env)?;
                fs::rename(outbox::eml_path(dir, &id), outbox::sent_eml_path(dir, &id))
                    .with_context(|| format!("cannot move {id} to sent/"))?;
                sync_dir(&dir.sent());
                crate::store::fault::point(&format!("sent/{id}.eml"))?;
                let _ = fs::remove_file(&env_path);
                sync_dir(&dir.outbox());
                dir.journal_line(&when, &format!("send: {id} to {} accepted: {reply}", env.to.join(", ")))?;
                out.push(Delivery::Sent { id, reply });
            }
            Err((error, true)) => {
                // Held: the same server would refuse it again. The
                // moderator is told once (unless the refused mail is the
                // moderator's own: that would only be refused in turn).
                env.sending = false;
                env.last_error = Some(error.clone());
                env.refused = Some(error.clone());
                outbox::write_envelope(&env_path, &env)?;
                dir.journal_line(
                    &when,
                    &format!(
                        "send: {id} to {} refused for good, held (release with send --release {id}): {error}",
                        env.to.join(", ")
                    ),
                )?;
                tell_moderator_refused(dir, &env, &error, now)?;
                out.push(Delivery::Refused { id, error });
            }
            Err((error, false)) => {
                env.sending = false;
                env.last_error = Some(error.clone());
                outbox::write_envelope(&env_path, &env)?;
                dir.journal_line(
                    &when,
                    &format!(
                        "send: {id} to {} failed (attempt {}): {error}",
                        env.to.join(", "),
                        env.attempts
                    ),
                )?;
                out.push(Delivery::Failed { id, error });
            }
        }
    }
    Ok(out)
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
        "The mail server refused a message of game {game} for good:\n\n  to: {}\n  subject: {}\n  server: {}\n\nIt is held in the outbox and will not be retried on its own. Once the\ncause is fixed (an address in game.toml, the server's limits), send it\nagain with\n\n  empereur send --game <game dir> --release {}\n",
        super::escape::line(&env.to.join(", "), 500),
        super::escape::line(&env.subject, 300),
        super::escape::line(error, 500),
        env.id
    );
    let m = outbox::OutMail {
        id: outbox::stable_id(&["refused", game, &env.id]),
        from: outbox::Addr::new(Some(&format!("Empereur {game}")), config.mail_address()),
        to: vec![outbox::Addr::new(Some(&config.moderator.name), moderator)],
        cc: vec![],
        subject: format!("Empereur {game}: the mail server refused a message"),
        in_reply_to: None,
        body,
        attachments: vec![],
        date: now,
    };
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

/// Finish a move to `sent/` that a crash interrupted (the message is in
/// `sent/` but its outbox envelope is still there).
fn cleanup(dir: &GameDir) -> Result<()> {
    let d = dir.outbox();
    if !d.is_dir() {
        return Ok(());
    }
    for e in fs::read_dir(&d)? {
        let p = e?.path();
        if p.extension().and_then(|x| x.to_str()) == Some("json")
            && let Some(id) = p.file_stem().and_then(|s| s.to_str())
            && !outbox::eml_path(dir, id).exists()
            && outbox::sent_eml_path(dir, id).exists()
        {
            fs::remove_file(&p)?;
        }
    }
    Ok(())
}
