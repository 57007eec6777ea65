//! Mail: everything between a player's mailbox and the game directory.
//!
//! Incoming ([`ingest`]): the raw bytes are archived first ([`archive`],
//! Maildir `mail/inbox/`, fsynced, never deleted, deduplicated by their
//! SHA-256), then parsed ([`parse`]: text/plain, else HTML as text, else a
//! `.txt` attachment; any charset and transfer encoding), routed and
//! authenticated ([`prescan`] reads only the GAME/POWER/PASSWORD/PHASE
//! lines; [`auth`] checks the password against the stored argon2 hash,
//! and, when the game trusts its server's `Authentication-Results`,
//! [`authres`] whether that server vouched for the sender's domain),
//! then the orders go through `orders::check` and `store::submission`.
//! Every message gets a reply, every decision a journal line.
//!
//! Outgoing ([`outbox`], [`transport`]): messages are built only with
//! lettre's typed builders, queued as `mail/outbox/<id>.eml` plus an
//! envelope `<id>.json`, and moved to `mail/sent/` only once the server
//! accepted them. [`compose`] queues phase-opening mails and turn reports
//! rendered by [`crate::report`].
//!
//! [`fetch`] pulls unseen mail over IMAPS. A delivery status
//! notification ([`dsn`]) is never answered; a dead player's address is
//! recorded and the moderator told once.
//!
//! This module owns `mail/` of a game directory and the host directory of
//! `ingest --games`; it reads `game.toml` and `state.toml`, writes
//! submissions through `store::submission` and journal lines through
//! `GameDir::journal_lines`.
//!
//! Getting mail in, the usual ways:
//!
//! ```text
//! # ~/.forward or procmail: one message on stdin
//! "|empereur ingest --game /srv/games/campaign -"
//! # Postfix/Dovecot delivering to a Maildir, from cron
//! empereur ingest --game /srv/games/campaign --maildir ~/Maildir
//! # a remote IMAP account: [mail.imap] in game.toml, then
//! empereur fetch --game /srv/games/campaign
//! # or mbsync/fetchmail into a Maildir, then ingest --maildir
//! ```
//!
//! `docs/mail.md` has the Postfix `pipe(8)` and `.forward` set-ups and
//! their exit codes, and what is never answered ([`guard`], [`parse`]).
//! A message that cannot be answered or processed goes to
//! [`quarantine`]; text echoed back goes through [`escape`].
#![allow(clippy::disallowed_methods)] // adapter: files, mail servers

pub mod answer_reminder;
pub mod archive;
pub mod auth;
pub mod authres;
pub mod commands;
pub mod compose;
pub mod dsn;
pub mod escape;
pub mod fetch;
pub mod fold;
pub mod guard;
pub mod ingest;
pub mod join;
pub mod mailed;
pub mod meta;
pub mod outbox;
pub mod parse;
pub mod prescan;
pub mod press;
pub mod quarantine;
pub mod signoff;
pub mod transport;

/// SHA-256 of bytes, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Whether mail can be sent to `addr` by this program: a plain
/// `local@domain` that lettre accepts, without a quoted local part or an
/// address literal (`a@[1.2.3.4]`), which relays refuse or mishandle.
/// Used wherever an address comes in (a From line, `new`,
/// `replace-player`, `game.toml`), so nothing unanswerable is stored.
pub fn addressable(addr: &str) -> Result<(), String> {
    let why = |r: &str| Err(format!("'{addr}' cannot be mailed: {r}"));
    if addr.contains(['"', '[', ']']) {
        return why("quoted names and address literals are not accepted");
    }
    if addr.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return why("it contains spaces or control characters");
    }
    match addr.parse::<lettre::Address>() {
        Ok(_) => Ok(()),
        Err(e) => why(&e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn unmailable_addresses_are_named() {
        for bad in [
            "alice@",
            "a@b@c.org",
            "a..b@x.org",
            "\"a b\"@x.org",
            "a@[1.2.3.4]",
            "noat",
            "@x.org",
            "",
        ] {
            assert!(super::addressable(bad).is_err(), "{bad}");
        }
        for good in ["ann@example.org", "a.b+c@x.org", "gm@localhost"] {
            assert!(super::addressable(good).is_ok(), "{good}");
        }
    }
}
