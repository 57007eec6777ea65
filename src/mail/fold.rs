//! One mail where two would leave together for the same player (issue
//! 37): an answer to a player (the acknowledgement of their orders, a
//! refusal, the answers to their commands) still in the outbox when the
//! phase mail that resolves their phase is queued (the run that read
//! their mail resolved it, or a pipe delivery queued the answer and the
//! run that sends it resolves). The phase mail carries the answer's text
//! at its top, as the answer says it, and answers the player's message
//! (`In-Reply-To`, so `Auto-Submitted: auto-replied`, RFC 3834 §5); the
//! answer itself is moved to `sent/` marked as folded, never sent on its
//! own nor queued again. Likewise a reminder due while the phase's
//! opening to that player is still in the outbox is its top.
//!
//! Only an answer addressed to the player's address on record alone is
//! folded (a copy to another address, or one showing other recipients,
//! goes as it is), and only one no send has touched (neither being sent
//! nor refused by the server): it would leave with the phase mail anyway,
//! and the phase mail goes to that address anyway, so nothing reaches
//! anyone it would not have reached, nor later. A player whose orders
//! are refused reads it at the top of the mail, in the answer's words.

use super::outbox::{self, Addr, Envelope, FileAttachment, OutMail};
use crate::store::{self, GameDir};
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::fs;

/// An answer queued and not sent, as the phase mail carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Its id in the outbox.
    pub id: String,
    /// The subject of the mail it answers (the answer's, without `Re: `).
    pub subject: String,
    /// The Message-ID it answers (without brackets).
    pub in_reply_to: String,
    /// Its text, without its footer and anchors (the phase mail has
    /// its own, newer).
    pub text: String,
}

/// The answers waiting in the outbox for each address, lower case, in
/// the order queued: each to one address alone, answering a message,
/// neither being sent nor refused.
pub fn answers_queued(dir: &GameDir) -> Result<BTreeMap<String, Vec<Answer>>> {
    let mut out: BTreeMap<String, Vec<Answer>> = BTreeMap::new();
    for id in outbox::queued(dir)? {
        let Ok(env) = outbox::read_envelope(&outbox::env_path(dir, &id)) else {
            continue;
        };
        if !untouched(&env) || env.to.len() != 1 {
            continue;
        }
        let raw = fs::read(outbox::eml_path(dir, &id)).with_context(|| format!("cannot read queued message {id}"))?;
        if let Some(a) = answer_of(&id, &env, &raw) {
            out.entry(env.to[0].to_ascii_lowercase()).or_default().push(a);
        }
    }
    Ok(out)
}

/// Whether a queued message is still only queued: no send marked it
/// as leaving (it may have left) and the server did not refuse it (it
/// waits for the moderator).
fn untouched(env: &Envelope) -> bool {
    !env.sending && env.refused.is_none()
}

/// The answer a queued message is, if it answers a message and shows
/// its one recipient alone.
fn answer_of(id: &str, env: &Envelope, raw: &[u8]) -> Option<Answer> {
    let m = mail_parser::MessageParser::default().parse(raw)?;
    let in_reply_to = m.in_reply_to().as_text()?.trim().to_string();
    let shown: Vec<&str> = [m.to(), m.cc()]
        .into_iter()
        .flatten()
        .flat_map(|a| a.iter().filter_map(|x| x.address()))
        .collect();
    if shown.len() != 1 || !shown[0].eq_ignore_ascii_case(&env.to[0]) || m.attachment_count() > 0 {
        return None;
    }
    let subject = m.subject().unwrap_or("");
    let subject = match subject.get(..3) {
        Some(re) if re.eq_ignore_ascii_case("re:") => subject[3..].trim(),
        _ => subject.trim(),
    };
    let body = m.body_text(0)?.replace("\r\n", "\n");
    Some(Answer {
        id: id.to_string(),
        subject: subject.to_string(),
        in_reply_to,
        text: without_footer(&body),
    })
}

/// A mail's text above its anchors (after the last signature separator
/// `-- `: a separator in what the answer quotes of the player's mail
/// cuts nothing) and its footer (a line `--`, then `Empereur, ...`).
fn without_footer(body: &str) -> String {
    let text = body.rfind("\n-- \n").map_or(body, |at| &body[..at]).trim_end();
    let text = match text.rfind("\n--\n") {
        Some(at) if text[at + 4..].starts_with("Empereur") => &text[..at],
        _ => text,
    };
    text.trim_end().to_string()
}

/// The top of a phase mail carrying `answers`: each answer under the
/// subject of the mail it answers, then what follows (the report of
/// `resolved`, which has resolved since), and a rule.
pub fn top(answers: &[Answer], resolved: &str) -> String {
    let mut s = String::new();
    for a in answers {
        s.push_str(&format!("In answer to your mail \"{}\":\n\n{}\n\n", a.subject, a.text));
    }
    s.push_str(&format!(
        "Phase {resolved} has resolved since: its report follows, then the phase now open.\n\n{}\n\n",
        "=".repeat(72)
    ));
    s
}

/// Move the folded answer `id` to `sent/`, marked as folded into the
/// message `into` (queued already), with a journal line: never sent on
/// its own, never queued again.
pub fn fold_away(dir: &GameDir, id: &str, into: &str, now: DateTime<Utc>) -> Result<()> {
    let when = now.to_rfc3339();
    let env_path = outbox::env_path(dir, id);
    let mut env = outbox::read_envelope(&env_path)?;
    env.folded_into = Some(into.to_string());
    outbox::write_envelope(&outbox::sent_env_path(dir, id), &env)?;
    fs::rename(outbox::eml_path(dir, id), outbox::sent_eml_path(dir, id))
        .with_context(|| format!("cannot move {id} to sent/"))?;
    store::sync_dir(&dir.sent());
    let _ = fs::remove_file(&env_path);
    store::sync_dir(&dir.outbox());
    dir.journal_line(
        &when,
        &format!(
            "fold: {id} to {} goes inside {into}, the phase mail that leaves with it",
            env.to.join(", ")
        ),
    )
}

/// Put `text` at the top of the queued message `id`, if it is queued
/// and no send has touched it: the message is built again from its
/// bytes (its headers, its text below `text`, its files), keeping its
/// id, its date and its place in the queue. Returns whether it did.
pub fn prepend(dir: &GameDir, id: &str, text: &str, now: DateTime<Utc>) -> Result<bool> {
    let path = outbox::eml_path(dir, id);
    if !path.is_file() {
        return Ok(false);
    }
    let Ok(env) = outbox::read_envelope(&outbox::env_path(dir, id)) else {
        return Ok(false);
    };
    if !untouched(&env) {
        return Ok(false);
    }
    let raw = fs::read(&path).with_context(|| format!("cannot read queued message {id}"))?;
    let date = DateTime::parse_from_rfc3339(&env.queued).map_or(now, |d| d.with_timezone(&Utc));
    let Some(m) = rebuilt(id, &raw, date) else {
        return Ok(false);
    };
    let m = OutMail {
        body: format!("{}\n\n{}\n\n{}", text.trim_end(), "=".repeat(72), m.body),
        ..m
    };
    store::atomic_write(&path, &m.build()?)?;
    Ok(true)
}

/// A queued message read back from its bytes as the message it was
/// built from (dated `date`); `None` if a part of it cannot be read back.
fn rebuilt(id: &str, raw: &[u8], date: DateTime<Utc>) -> Option<OutMail> {
    use mail_parser::MimeHeaders;
    let m = mail_parser::MessageParser::default().parse(raw)?;
    let addrs = |a: Option<&mail_parser::Address<'_>>| -> Option<Vec<Addr>> {
        a.map(|a| {
            a.iter()
                .map(|x| x.address().map(|e| Addr::new(x.name(), e)))
                .collect::<Option<Vec<Addr>>>()
        })
        .unwrap_or(Some(Vec::new()))
    };
    let from = addrs(m.from())?.into_iter().next()?;
    let mut attachments = Vec::new();
    for a in m.attachments() {
        let ct = a.content_type()?;
        let mut content_type = format!("{}/{}", ct.ctype(), ct.subtype()?);
        if let Some(cs) = ct.attribute("charset") {
            content_type.push_str(&format!("; charset={cs}"));
        }
        attachments.push(FileAttachment {
            name: a.attachment_name()?.to_string(),
            content_type,
            bytes: a.contents().to_vec(),
        });
    }
    Some(OutMail {
        id: id.to_string(),
        from,
        to: addrs(m.to())?,
        cc: addrs(m.cc())?,
        subject: m.subject().unwrap_or("").to_string(),
        in_reply_to: m.in_reply_to().as_text().map(str::to_string),
        body: m.body_text(0)?.replace("\r\n", "\n"),
        attachments,
        date,
    })
}

/// The text of a mail the game composed (a reminder), without its
/// footer: what [`prepend`] puts on top of another.
pub fn text_of(body: &str) -> String {
    without_footer(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_footer_and_anchors_are_cut_and_the_text_kept() {
        let body = "France is IN.\n\nOrders as understood:\n  ok  MOVE FIRST\n\n--\nEmpereur, for game demo. Reply with a complete new set.\n\n-- \nAnchors (keep this mail):\nEmpereur-Chain: demo 0\n  abc\n";
        assert_eq!(
            without_footer(body),
            "France is IN.\n\nOrders as understood:\n  ok  MOVE FIRST"
        );
        // A text of its own (a game's template) without our footer is kept whole.
        assert_eq!(without_footer("a\n--\nb\n"), "a\n--\nb");
        // A signature the answer quotes is not where it ends.
        assert_eq!(
            without_footer("NO x\n-- \nSent from my phone\n\n-- \nAnchors\n"),
            "NO x\n-- \nSent from my phone"
        );
    }
}
