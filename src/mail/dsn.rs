//! Delivery status notifications (RFC 3464): a report a mail server
//! sends back when a message could not be delivered
//! (`multipart/report; report-type=delivery-status`, with a
//! `message/delivery-status` part of per-recipient fields). Such a report
//! is never answered (that is how mail loops start, RFC 3834); one whose
//! recipient failed (`Action: failed`) at a player's address is recorded
//! against that player in `mail/bounces.toml`, the moderator is told once
//! per dead address, and `empereur status` and `send` show it until the
//! address is replaced or the moderator dismisses it (`send --drop
//! ADDRESS`).
//!
//! This module owns `mail/bounces.toml`.

use super::compose;
use super::outbox;
use crate::ids::PowerId;
use crate::store::{GameConfig, GameDir};
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use mail_parser::MimeHeaders as _;
use serde::{Deserialize, Serialize};

/// One recipient of a delivery status notification (RFC 3464 §2.3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recipient {
    /// `Final-Recipient` (else `Original-Recipient`), the address alone.
    pub address: String,
    /// `Action`: `failed`, `delayed`, `delivered`, `relayed`, `expanded`.
    pub action: String,
    /// `Status`: `5.1.1` and the like.
    pub status: String,
    /// `Diagnostic-Code`, as the server wrote it.
    pub diagnostic: Option<String>,
}

/// The per-recipient fields of `raw`, if it is a delivery status
/// notification (its top-level type `multipart/report` with
/// `report-type=delivery-status`); `None` for any other message.
pub fn parse(raw: &[u8]) -> Option<Vec<Recipient>> {
    let m = mail_parser::MessageParser::default().parse(raw)?;
    let ct = m.content_type()?;
    let is_report = ct.ctype().eq_ignore_ascii_case("multipart")
        && ct.subtype().is_some_and(|s| s.eq_ignore_ascii_case("report"))
        && ct
            .attribute("report-type")
            .is_some_and(|r| r.trim().eq_ignore_ascii_case("delivery-status"));
    if !is_report {
        return None;
    }
    let part = m.parts.iter().find(|p| {
        p.content_type().is_some_and(|c| {
            c.ctype().eq_ignore_ascii_case("message")
                && c.subtype().is_some_and(|s| {
                    s.eq_ignore_ascii_case("delivery-status") || s.eq_ignore_ascii_case("global-delivery-status")
                })
        })
    })?;
    Some(fields(&String::from_utf8_lossy(part.contents())))
}

/// The per-recipient groups of a `message/delivery-status` body: blocks
/// separated by blank lines, the first of them the per-message fields
/// (RFC 3464 §2.1); folded lines are joined. A group names its recipient
/// by `Final-Recipient`, else `Original-Recipient`.
fn fields(text: &str) -> Vec<Recipient> {
    let mut blocks: Vec<Vec<String>> = vec![Vec::new()];
    for l in text.lines() {
        let block = blocks.last_mut().expect("never empty");
        if l.trim().is_empty() {
            if !block.is_empty() {
                blocks.push(Vec::new());
            }
            continue;
        }
        match block.last_mut() {
            Some(last) if l.starts_with([' ', '\t']) => {
                last.push(' ');
                last.push_str(l.trim());
            }
            _ => block.push(l.trim_end().to_string()),
        }
    }
    let mut out = Vec::new();
    for block in blocks.iter().skip(1) {
        let mut r = Recipient::default();
        let mut original = None;
        for l in block {
            let Some((name, value)) = l.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "final-recipient" => r.address = address_of(value),
                "original-recipient" => original = Some(address_of(value)),
                "action" => r.action = value.to_ascii_lowercase(),
                "status" => r.status = value.split_whitespace().next().unwrap_or("").to_string(),
                "diagnostic-code" => r.diagnostic = Some(super::escape::line(value, 300)),
                _ => {}
            }
        }
        if r.address.is_empty() {
            r.address = original.unwrap_or_default();
        }
        if !r.address.is_empty() {
            out.push(r);
        }
    }
    out
}

/// `rfc822; Ann <ann@example.org>` -> `ann@example.org` (RFC 3464 §2.3.2:
/// an address type, then the address).
fn address_of(value: &str) -> String {
    let addr = value.split_once(';').map_or(value, |(_, a)| a).trim();
    let addr = match (addr.rfind('<'), addr.rfind('>')) {
        (Some(a), Some(b)) if a < b => &addr[a + 1..b],
        _ => addr,
    };
    addr.trim().to_ascii_lowercase()
}

/// One dead address, as `mail/bounces.toml` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dead {
    pub address: String,
    /// The power whose player the address was when the report came.
    pub power: PowerId,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<String>,
    /// When the first and the latest report came.
    pub first: String,
    pub last: String,
    pub reports: u32,
    /// When the moderator dismissed it (`send --drop ADDRESS`): no
    /// longer listed by `status` nor `send`, whatever reports come after
    /// (they are still counted here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dismissed: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Bounces {
    #[serde(default)]
    dead: Vec<Dead>,
}

fn path(dir: &GameDir) -> std::path::PathBuf {
    dir.root.join("mail/bounces.toml")
}

/// The dead addresses recorded, oldest first.
pub fn load(dir: &GameDir) -> Result<Vec<Dead>> {
    let p = path(dir);
    if !p.is_file() {
        return Ok(Vec::new());
    }
    let text = crate::store::read_text(&p)?;
    let b: Bounces = toml::from_str(&text).with_context(|| format!("{} is damaged", p.display()))?;
    Ok(b.dead)
}

/// Those of the dead addresses recorded that are still a player's and
/// not dismissed: an address the moderator has since replaced, or
/// dismissed (`send --drop ADDRESS`), is no longer dead for the game.
pub fn still_dead(dir: &GameDir, config: &GameConfig) -> Result<Vec<Dead>> {
    Ok(load(dir)?
        .into_iter()
        .filter(|d| d.dismissed.is_none())
        .filter(|d| config.players.iter().any(|p| p.email.eq_ignore_ascii_case(&d.address)))
        .collect())
}

/// The moderator dismisses the dead address `address` for good (`send
/// --drop ADDRESS`: the player says it works, or the moderator reaches
/// them otherwise): it is no longer listed, and the journal says so.
/// `None` when no dead address of that name is listed.
pub fn dismiss(dir: &GameDir, address: &str, now: DateTime<Utc>) -> Result<Option<Dead>> {
    let mut dead = load(dir)?;
    let Some(d) = dead
        .iter_mut()
        .find(|d| d.dismissed.is_none() && d.address.eq_ignore_ascii_case(address.trim()))
    else {
        return Ok(None);
    };
    let when = now.to_rfc3339();
    d.dismissed = Some(when.clone());
    let taken = d.clone();
    let text = toml::to_string(&Bounces { dead }).context("serialising mail/bounces.toml")?;
    crate::store::atomic_write(&path(dir), text.as_bytes())?;
    dir.journal_line(
        &when,
        &format!(
            "send: dead address {} ({}) dismissed by the moderator; its bounces are no longer reported",
            taken.address,
            taken.power.id()
        ),
    )?;
    Ok(Some(taken))
}

/// What taking a delivery status notification did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taken {
    /// For the journal.
    pub line: String,
    /// The note queued to the moderator (a newly dead address only).
    pub told: Option<String>,
}

/// If `raw` is a delivery status notification, record what it says of
/// the players' addresses (never answering it) and tell the moderator of
/// each newly dead address once; `None` for any other message.
pub fn take(dir: &GameDir, config: &GameConfig, raw: &[u8], now: DateTime<Utc>) -> Result<Option<Taken>> {
    let Some(rcpts) = parse(raw) else {
        return Ok(None);
    };
    let mut dead = load(dir)?;
    let mut parts = Vec::new();
    let mut told = None;
    let when = now.to_rfc3339();
    for r in &rcpts {
        let player = config.players.iter().find(|p| p.email.eq_ignore_ascii_case(&r.address));
        let (Some(p), "failed") = (player, r.action.as_str()) else {
            parts.push(format!(
                "{} {} ({})",
                r.address,
                if r.action.is_empty() { "no action" } else { &r.action },
                if player.is_some() {
                    "a player's"
                } else {
                    "no player's address"
                }
            ));
            continue;
        };
        parts.push(format!(
            "{} failed {} ({}'s address): recorded",
            r.address,
            r.status,
            p.power.id()
        ));
        match dead.iter_mut().find(|d| d.address == r.address) {
            Some(d) => {
                d.last = when.clone();
                d.reports += 1;
                d.status = r.status.clone();
                d.power = p.power;
            }
            None => {
                let d = Dead {
                    address: r.address.clone(),
                    power: p.power,
                    status: r.status.clone(),
                    diagnostic: r.diagnostic.clone(),
                    first: when.clone(),
                    last: when.clone(),
                    reports: 1,
                    dismissed: None,
                };
                told = Some(tell_moderator(dir, config, &d, now)?);
                dead.push(d);
            }
        }
    }
    let text = toml::to_string(&Bounces { dead }).context("serialising mail/bounces.toml")?;
    crate::store::atomic_write(&path(dir), text.as_bytes())?;
    Ok(Some(Taken {
        line: format!(
            "not answered (a delivery or read report: {})",
            if parts.is_empty() {
                "no recipient named".to_string()
            } else {
                parts.join("; ")
            }
        ),
        told,
    }))
}

/// The moderator's note that a player's address is dead (one per
/// address: its id is stable).
fn tell_moderator(dir: &GameDir, config: &GameConfig, d: &Dead, now: DateTime<Utc>) -> Result<String> {
    let game = &config.game;
    let mut body = format!(
        "The mail server reports that mail to {} ({}'s player) cannot be delivered:\n\n  status: {}\n",
        d.address,
        d.power.name(),
        d.status
    );
    if let Some(diag) = &d.diagnostic {
        body.push_str(&format!("  server: {diag}\n"));
    }
    body.push_str(&format!(
        "\n{}\n",
        textwrap::fill(
            &format!(
                "The player may be missing the game's mail. Ask them for a working address and put it in game.toml (`empereur status` lists dead addresses until then). This note is sent once for {}.",
                d.address
            ),
            72
        )
    ));
    let m = compose::game_mail(
        config,
        outbox::stable_id(&["dead-address", game, &d.address]),
        vec![compose::moderator_addr(config)],
        format!("Empereur {game}: {}'s address {} is dead", d.power.name(), d.address),
        body,
        now,
    );
    outbox::queue(dir, &m)?;
    Ok(m.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(fields: &str) -> Vec<u8> {
        format!(
            "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\nTo: gm@demo.example.org\r\nSubject: Undelivered Mail Returned to Sender\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status;\r\n\tboundary=\"B1\"\r\n\r\n--B1\r\nContent-Type: text/plain\r\n\r\nThis is the mail system.\r\n\r\n--B1\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n{fields}\r\n--B1--\r\n"
        )
        .into_bytes()
    }

    #[test]
    fn a_report_gives_each_recipient_its_action_and_status() {
        let raw = report(
            "Final-Recipient: rfc822; Ann <ANN@example.org>\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1\r\n  user unknown\r\n\r\nOriginal-Recipient: rfc822;bob@example.org\r\nAction: delayed\r\nStatus: 4.4.1 (timeout)\r\n",
        );
        let r = parse(&raw).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].address, "ann@example.org");
        assert_eq!((r[0].action.as_str(), r[0].status.as_str()), ("failed", "5.1.1"));
        assert_eq!(r[0].diagnostic.as_deref(), Some("smtp; 550 5.1.1 user unknown"));
        assert_eq!(r[1].address, "bob@example.org");
        assert_eq!((r[1].action.as_str(), r[1].status.as_str()), ("delayed", "4.4.1"));
    }

    #[test]
    fn only_a_delivery_status_report_is_one() {
        let other = String::from_utf8(report("Final-Recipient: rfc822; a@b.org\r\nAction: failed\r\n"))
            .unwrap()
            .replace("report-type=delivery-status", "report-type=disposition-notification");
        assert_eq!(parse(other.as_bytes()), None);
        assert_eq!(
            parse(b"From: a@b.org\r\nSubject: x\r\n\r\nFinal-Recipient: rfc822; a@b.org\r\n"),
            None
        );
    }
}
