//! `fetch`: pull new messages from an IMAP mailbox over TLS (implicit
//! TLS, port 993) into the game, for moderators without a local Maildir.
//! Unseen messages are downloaded with `BODY.PEEK[]`, ingested (archived
//! first, fsynced), and only then flagged `\Seen` on the server; nothing
//! is ever deleted there. A crash in between downloads a message again,
//! and the archive recognises it.
//!
//! Client: the `imap` crate (2.4, without its native-tls feature) over a
//! rustls stream, so the binary has one TLS stack. Alternative for any
//! other setup: fetch with mbsync or fetchmail into a Maildir and run
//! `empereur ingest --maildir`.

use super::transport::install_crypto;
use crate::store::config::ImapConfig;
use anyhow::{Context, Result, anyhow};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

type Tls = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// Hard limit on any single network read or write.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

fn tls_config(cfg: &ImapConfig, base: &Path) -> Result<rustls::ClientConfig> {
    install_crypto();
    let mut roots = rustls::RootCertStore::empty();
    for c in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(c);
    }
    if let Some(ca) = &cfg.ca_file {
        let p = base.join(ca);
        for c in CertificateDer::pem_file_iter(&p).map_err(|e| anyhow!("CA file {}: {e}", p.display()))? {
            let c = c.map_err(|e| anyhow!("CA file {}: {e}", p.display()))?;
            roots.add(c).map_err(|e| anyhow!("CA file {}: {e}", p.display()))?;
        }
    }
    Ok(rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth())
}

fn password(cfg: &ImapConfig, base: &Path) -> Result<String> {
    if let Some(v) = &cfg.password_env {
        return std::env::var(v).with_context(|| format!("environment variable {v} (the IMAP password) is not set"));
    }
    if let Some(f) = &cfg.password_file {
        let p = base.join(f);
        let s = std::fs::read_to_string(&p).with_context(|| format!("cannot read password file {}", p.display()))?;
        return Ok(s.lines().next().unwrap_or("").to_string());
    }
    Err(anyhow!("[mail.imap] needs password_env or password_file"))
}

/// Download the unseen messages of the configured mailbox; `handle` is
/// called with each (it must archive it durably before returning Ok),
/// after which the message is flagged seen. Returns how many.
pub fn fetch_new(cfg: &ImapConfig, base: &Path, mut handle: impl FnMut(&[u8]) -> Result<()>) -> Result<usize> {
    let port = cfg.port.unwrap_or(993);
    let name = cfg.tls_name.clone().unwrap_or_else(|| cfg.host.clone());
    let tcp = TcpStream::connect((cfg.host.as_str(), port))
        .with_context(|| format!("cannot connect to IMAP server {}:{port}", cfg.host))?;
    tcp.set_read_timeout(Some(IO_TIMEOUT))?;
    tcp.set_write_timeout(Some(IO_TIMEOUT))?;
    let server = ServerName::try_from(name.clone()).map_err(|e| anyhow!("TLS name '{name}': {e}"))?;
    let conn = rustls::ClientConnection::new(Arc::new(tls_config(cfg, base)?), server)
        .map_err(|e| anyhow!("TLS to {}: {e}", cfg.host))?;
    let stream: Tls = rustls::StreamOwned::new(conn, tcp);
    let mut client = imap::Client::new(stream);
    client
        .read_greeting()
        .map_err(|e| anyhow!("IMAP greeting from {}: {e}", cfg.host))?;
    let pw = password(cfg, base)?;
    let mut session = client
        .login(&cfg.user, &pw)
        .map_err(|(e, _)| anyhow!("IMAP login as {} at {}: {e}", cfg.user, cfg.host))?;
    let mailbox = cfg.mailbox.as_deref().unwrap_or("INBOX");
    session
        .select(mailbox)
        .map_err(|e| anyhow!("IMAP mailbox {mailbox}: {e}"))?;
    let mut uids: Vec<u32> = session
        .uid_search("UNSEEN")
        .map_err(|e| anyhow!("IMAP search: {e}"))?
        .into_iter()
        .collect();
    uids.sort();
    let mut n = 0;
    for uid in uids {
        let fetched = session
            .uid_fetch(uid.to_string(), "BODY.PEEK[]")
            .map_err(|e| anyhow!("IMAP fetch of UID {uid}: {e}"))?;
        for f in fetched.iter() {
            if let Some(body) = f.body() {
                handle(body)?;
                n += 1;
            }
        }
        session
            .uid_store(uid.to_string(), "+FLAGS (\\Seen)")
            .map_err(|e| anyhow!("IMAP flag UID {uid} seen: {e}"))?;
    }
    let _ = session.logout();
    Ok(n)
}
