//! The outbox: outgoing messages built with lettre's typed builders (no
//! header is ever assembled from text, so a player's name or subject
//! cannot inject headers), stored as `mail/outbox/<id>.eml` with an
//! envelope `<id>.json`. The id is stable (derived from what the message
//! answers), and so is the Message-ID: queuing the same reply twice
//! replaces the queued copy, and a message already in `mail/sent/` is
//! never queued again.

use crate::store::{GameDir, atomic_write};
use anyhow::{Context, Result, anyhow};
use chrono::{DateTime, Utc};
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::PathBuf;

/// An address with an optional display name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Addr {
    pub name: Option<String>,
    pub email: String,
}

impl Addr {
    pub fn new(name: Option<&str>, email: &str) -> Addr {
        Addr {
            name: name.map(str::to_string),
            email: email.to_string(),
        }
    }
    fn mailbox(&self) -> Result<Mailbox> {
        let email = self
            .email
            .parse()
            .map_err(|e| anyhow!("'{}' is not a valid address: {e}", self.email))?;
        // Names are passed as values; lettre encodes them (RFC 2047).
        let name = self.name.as_ref().map(|n| header_text(n, 100));
        Ok(Mailbox::new(name, email))
    }
}

/// A file attached to an outgoing message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileAttachment {
    pub name: String,
    /// MIME type, e.g. `text/plain; charset=utf-8`, `application/json`.
    pub content_type: String,
    pub bytes: Vec<u8>,
}

impl FileAttachment {
    /// The game state as `viewer` may see it (2.5), as `state-<power>.toml`;
    /// the whole state as `state.toml` for the moderator (`None`). Every
    /// mail that carries a state builds it here, so a player never gets
    /// more than their view by one sender forgetting to filter.
    pub fn state(state: &crate::state::State, viewer: Option<crate::ids::PowerId>) -> FileAttachment {
        let (name, text) = match viewer {
            Some(p) => (format!("state-{}.toml", p.id()), state.view_text_for(p)),
            None => ("state.toml".to_string(), state.to_toml()),
        };
        FileAttachment {
            name,
            content_type: "text/plain; charset=utf-8".into(),
            bytes: text.into_bytes(),
        }
    }
}

/// A message to send.
#[derive(Clone, Debug)]
pub struct OutMail {
    /// Stable id: file name in outbox/sent and local part of the
    /// Message-ID.
    pub id: String,
    pub from: Addr,
    pub to: Vec<Addr>,
    pub cc: Vec<Addr>,
    pub subject: String,
    /// Message-ID (without brackets) of the message this answers.
    pub in_reply_to: Option<String>,
    pub body: String,
    pub attachments: Vec<FileAttachment>,
    pub date: DateTime<Utc>,
}

/// The envelope and delivery record kept beside each queued message.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    pub id: String,
    pub message_id: String,
    pub from: String,
    /// Every recipient (To and Cc).
    pub to: Vec<String>,
    pub subject: String,
    pub queued: String,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default)]
    pub last_error: Option<String>,
    /// Set (and fsynced) just before handing the message to the server,
    /// cleared after; found set on the next run it means a crash in
    /// between, and the message is held rather than sent twice.
    #[serde(default)]
    pub sending: bool,
    /// With `sending`: the batch it was marked in (`<boot id>/<pid>/<time>`,
    /// see `mail::transport::send_all`), which tells a later run whether
    /// the message may have left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
    /// A permanent refusal (SMTP 5xx): held until `send --release` (or
    /// `send --drop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The recipient's name as the message addresses them: a release
    /// after the moderator fixed a player's address finds the new one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_name: Option<String>,
    /// When the moderator dropped it (`send --drop`): in `sent/` without
    /// having gone out, so that it is never queued again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
    /// The message this answer went out inside (`mail::fold`): in
    /// `sent/` without having gone out on its own, never queued again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded_into: Option<String>,
    /// When the server accepted it (in `sent/`).
    #[serde(default)]
    pub sent: Option<String>,
    #[serde(default)]
    pub server_reply: Option<String>,
    /// Queuing order (nanoseconds of the real clock, strictly increasing
    /// within a process): messages are delivered in the order queued, so
    /// a player reads a phase's report before the next phase's opening.
    #[serde(default)]
    pub seq: u128,
}

/// What queuing did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queued {
    New,
    /// A message with this id was queued already and is replaced.
    Replaced,
    /// A message with this id was sent already; nothing queued.
    AlreadySent,
    /// A message with this id is queued and marked as leaving by a send
    /// that did not finish: it may have been delivered, so it is kept as
    /// it is (replacing it would drop the mark and send it again) and the
    /// next send holds it for the moderator (`mail::transport`).
    InFlight,
}

/// A stable id from the parts that identify a message (kind, what it
/// answers, recipient…): 32 hex characters.
pub fn stable_id(parts: &[&str]) -> String {
    let joined = parts.join("\u{1f}");
    super::sha256_hex(joined.as_bytes())[..32].to_string()
}

impl OutMail {
    /// The Message-ID (without brackets): `<id>@<domain of From>`.
    pub fn message_id(&self) -> String {
        let domain = self
            .from
            .email
            .rsplit_once('@')
            .map(|(_, d)| d)
            .unwrap_or("empereur.invalid");
        format!("{}@{domain}", self.id)
    }

    /// Build the RFC 5322 bytes with lettre. Every message carries
    /// `X-Loop: <game address>` (a message coming back with it is never
    /// answered) and `Auto-Submitted` (RFC 3834: `auto-replied` on a
    /// reply, `auto-generated` on everything else), so vacation
    /// responders stay quiet. Header values are cleaned of CR, LF and
    /// NUL and kept short enough to fold under 998 octets a line; bodies
    /// are given to lettre with CRLF line ends already (in one pass: its
    /// own conversion inserts one character at a time).
    pub fn build(&self) -> Result<Vec<u8>> {
        let kind = if self.in_reply_to.is_some() {
            "auto-replied"
        } else {
            "auto-generated"
        };
        let mut b = lettre::Message::builder()
            .from(self.from.mailbox()?)
            .subject(header_text(&self.subject, 300))
            .message_id(Some(format!("<{}>", self.message_id())))
            .date(std::time::SystemTime::from(self.date))
            .user_agent(format!("empereur {}", env!("CARGO_PKG_VERSION")))
            .header(AutoSubmitted(kind))
            .header(XLoop(self.from.email.clone()));
        for a in &self.to {
            b = b.to(a.mailbox()?);
        }
        for a in &self.cc {
            b = b.cc(a.mailbox()?);
        }
        if let Some(r) = &self.in_reply_to {
            let r = r
                .trim()
                .trim_matches(['<', '>'])
                .replace(['\r', '\n', ' ', '<', '>'], "");
            // A Message-ID is printable ASCII; one that is not, or too long
            // to fold, is not echoed.
            if !r.is_empty() && r.len() <= 250 && r.bytes().all(|c| c.is_ascii_graphic()) {
                b = b.in_reply_to(format!("<{r}>")).references(format!("<{r}>"));
            }
        }
        let text = SinglePart::builder()
            .header(ContentType::TEXT_PLAIN)
            .body(crlf(&self.body));
        let msg = if self.attachments.is_empty() {
            b.singlepart(text)
        } else {
            let mut mp = MultiPart::mixed().singlepart(text);
            for a in &self.attachments {
                let ct = ContentType::parse(&a.content_type)
                    .map_err(|e| anyhow!("attachment {}: bad content type '{}': {e}", a.name, a.content_type))?;
                let file = Attachment::new(header_text(&a.name, 100));
                mp = mp.singlepart(
                    if a.content_type.starts_with("text/") || a.content_type.starts_with("application/json") {
                        file.body(text_body(&a.bytes), ct)
                    } else {
                        file.body(a.bytes.clone(), ct)
                    },
                );
            }
            b.multipart(mp)
        }
        .map_err(|e| anyhow!("cannot build message {}: {e}", self.id))?;
        Ok(msg.formatted())
    }

    /// Every recipient address.
    pub fn recipients(&self) -> Vec<String> {
        self.to.iter().chain(&self.cc).map(|a| a.email.clone()).collect()
    }
}

/// A text attachment (JSON too) as it travels: with CRLF line ends, as
/// `7bit` when it is ASCII in lines of at most 998 octets (RFC 5322
/// 2.1.1: the state file, whose ` = ` quoted-printable would write as
/// `=3D`, 7 % larger), else quoted-printable or base64 as lettre finds
/// shorter, from the text itself (UTF-8: a JSON report naming
/// Württemberg is quoted-printable text, never base64 as bytes would be).
fn text_body(bytes: &[u8]) -> lettre::message::Body {
    use lettre::message::Body;
    use lettre::message::header::ContentTransferEncoding;
    let text = crlf(&String::from_utf8_lossy(bytes));
    let plain = text.bytes().all(|b| b.is_ascii() && b != 0)
        && text
            .split("\r\n")
            .all(|l| l.len() <= 998 && !l.contains('\r') && !l.contains('\n'));
    if plain {
        Body::dangerous_pre_encoded(text.into_bytes(), ContentTransferEncoding::SevenBit)
    } else {
        Body::new(text)
    }
}

/// Text with LF or CRLF line ends as CRLF, in one pass.
pub fn crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 32 + 2);
    let mut prev = '\0';
    for c in text.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}

/// A header value from text: no CR, LF, NUL or other controls, at most
/// `max` characters (lettre folds and encodes it; a short value folds
/// well under 998 octets a line).
fn header_text(s: &str, max: usize) -> String {
    let clean: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| !super::escape::hidden(*c))
        .collect();
    let mut out: String = clean.chars().take(max).collect();
    if clean.chars().count() > max {
        out.push('…');
    }
    out
}

/// `Auto-Submitted` (RFC 3834), so that vacation responders do not
/// answer our mail and no mail loop starts.
#[derive(Clone)]
struct AutoSubmitted(&'static str);

impl lettre::message::header::Header for AutoSubmitted {
    fn name() -> lettre::message::header::HeaderName {
        lettre::message::header::HeaderName::new_from_ascii_str("Auto-Submitted")
    }
    fn parse(s: &str) -> std::result::Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted(if s.trim() == "auto-replied" {
            "auto-replied"
        } else {
            "auto-generated"
        }))
    }
    fn display(&self) -> lettre::message::header::HeaderValue {
        lettre::message::header::HeaderValue::new(Self::name(), self.0.to_string())
    }
}

/// `X-Loop: <the game's address>`: a message that comes back carrying
/// it came from this game and is never answered.
#[derive(Clone)]
struct XLoop(String);

impl lettre::message::header::Header for XLoop {
    fn name() -> lettre::message::header::HeaderName {
        lettre::message::header::HeaderName::new_from_ascii_str("X-Loop")
    }
    fn parse(s: &str) -> std::result::Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(XLoop(s.trim().to_string()))
    }
    fn display(&self) -> lettre::message::header::HeaderValue {
        lettre::message::header::HeaderValue::new(Self::name(), self.0.clone())
    }
}

pub fn eml_path(dir: &GameDir, id: &str) -> PathBuf {
    dir.outbox().join(format!("{id}.eml"))
}
pub fn env_path(dir: &GameDir, id: &str) -> PathBuf {
    dir.outbox().join(format!("{id}.json"))
}
pub fn sent_eml_path(dir: &GameDir, id: &str) -> PathBuf {
    dir.sent().join(format!("{id}.eml"))
}
pub fn sent_env_path(dir: &GameDir, id: &str) -> PathBuf {
    dir.sent().join(format!("{id}.json"))
}

/// The next queuing sequence number: the real clock in nanoseconds, never
/// less than one more than the last given in this process (so two mails
/// queued in the same nanosecond, or across a clock step back, keep
/// their order within a run).
fn next_seq() -> u128 {
    use std::sync::Mutex;
    static LAST: Mutex<u128> = Mutex::new(0);
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    *last = wall.max(*last + 1);
    *last
}

/// Queue a message: envelope first, then the message (a queued message is
/// one whose `.eml` exists), both written atomically.
pub fn queue(dir: &GameDir, m: &OutMail) -> Result<Queued> {
    queue_with(dir, m, true)
}

/// Queue a message without the game's anchors: the one fixed reply to a
/// sender who is not a player names no game (a forged sender learns nothing), so it
/// carries no chain head or commitment either.
pub fn queue_unanchored(dir: &GameDir, m: &OutMail) -> Result<Queued> {
    queue_with(dir, m, false)
}

fn queue_with(dir: &GameDir, m: &OutMail, anchored: bool) -> Result<Queued> {
    // docs/dice.md, "Anchors": every mail the game sends to its players
    // carries the chain head and the open phase's commitment.
    let anchors = if anchored {
        crate::store::history::anchors(dir)?
    } else {
        String::new()
    };
    queue_anchored(dir, m, &anchors)
}

/// Queue a message ending with `anchors`, the game's anchor lines as
/// `store::history::anchors` gives them: read once by a caller queuing
/// many messages while the history and the open phase stay as they are
/// (an ingest run), instead of once a message.
pub fn queue_anchored(dir: &GameDir, m: &OutMail, anchors: &str) -> Result<Queued> {
    match prepare(dir, m, anchors)? {
        Some(p) => write_prepared(dir, &p),
        None => Ok(Queued::AlreadySent),
    }
}

/// A message built and given its place in the queue's order, not yet
/// written: what can fail with the message itself (an address lettre
/// refuses) has failed by now; what is left is the disk. One copy per
/// recipient (see [`copies`]).
#[derive(Clone, Debug)]
pub struct Prepared {
    pub id: String,
    parts: Vec<Part>,
}

/// One recipient's copy of a prepared message.
#[derive(Clone, Debug)]
struct Part {
    id: String,
    env: Envelope,
    bytes: Vec<u8>,
}

/// The copies a message goes out as: one per recipient, each delivered,
/// refused and retried on its own, so one refused address never keeps a
/// mail from the others (nor the copy to a player's address on record
/// from arriving). Each copy shows its own recipient alone unless the
/// game discloses its players' addresses (`[mail] disclose_addresses`),
/// when each shows every recipient. The first recipient's copy keeps the
/// message's id; each other one's id is derived from it and the address.
pub fn copies(m: &OutMail, disclose: bool) -> Vec<(OutMail, String)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (i, a) in m.to.iter().chain(&m.cc).enumerate() {
        if !seen.insert(a.email.to_ascii_lowercase()) {
            continue;
        }
        let mut c = m.clone();
        if i > 0 {
            c.id = stable_id(&[&m.id, &a.email.to_ascii_lowercase()]);
        }
        if !disclose {
            c.to = vec![a.clone()];
            c.cc = Vec::new();
        }
        out.push((c, a.email.clone()));
    }
    out
}

/// Build `m` ending with `anchors` and take its queuing sequence number
/// now, so that writing it later (an acknowledgement waits for its
/// submission, see `mail::ingest::Run`) keeps the order in which the
/// messages were decided. `None`: every copy of it was sent already.
pub fn prepare(dir: &GameDir, m: &OutMail, anchors: &str) -> Result<Option<Prepared>> {
    // Only a mail to several addresses needs the game's choice.
    let disclose = m.to.len() + m.cc.len() > 1 && dir.load_config().is_ok_and(|c| c.mail.disclose_addresses);
    let mut parts = Vec::new();
    for (mut c, rcpt) in copies(m, disclose) {
        if was_sent(dir, &c.id) {
            continue;
        }
        let to_name =
            m.to.iter()
                .chain(&m.cc)
                .find(|a| a.email.eq_ignore_ascii_case(&rcpt))
                .and_then(|a| a.name.clone());
        c.body.push_str(anchors);
        let bytes = c.build()?;
        let env = Envelope {
            id: c.id.clone(),
            message_id: c.message_id(),
            from: c.from.email.clone(),
            to: vec![rcpt],
            subject: c.subject.clone(),
            queued: c.date.to_rfc3339(),
            seq: next_seq(),
            to_name,
            ..Envelope::default()
        };
        parts.push(Part { id: c.id, env, bytes });
    }
    if parts.is_empty() {
        return Ok(None);
    }
    Ok(Some(Prepared {
        id: m.id.clone(),
        parts,
    }))
}

/// Queue a prepared message: for each copy, envelope first, then the
/// message. Says what happened to the first copy still to send.
pub fn write_prepared(dir: &GameDir, p: &Prepared) -> Result<Queued> {
    let mut first = None;
    for part in &p.parts {
        let q = write_part(dir, part)?;
        first.get_or_insert(q);
    }
    Ok(first.unwrap_or(Queued::AlreadySent))
}

fn write_part(dir: &GameDir, p: &Part) -> Result<Queued> {
    if was_sent(dir, &p.id) {
        return Ok(Queued::AlreadySent);
    }
    let existed = eml_path(dir, &p.id).exists();
    if existed && read_envelope(&env_path(dir, &p.id)).is_ok_and(|e| e.sending) {
        return Ok(Queued::InFlight);
    }
    write_envelope(&env_path(dir, &p.id), &p.env)?;
    atomic_write(&eml_path(dir, &p.id), &p.bytes)?;
    Ok(if existed { Queued::Replaced } else { Queued::New })
}

/// Whether a message with this id went out: moved to `sent/`, or its
/// `sent/` envelope written, which happens only once the server took it
/// (a run that died before the move; the next send finishes it).
pub fn was_sent(dir: &GameDir, id: &str) -> bool {
    sent_eml_path(dir, id).exists() || sent_env_path(dir, id).exists()
}

pub fn write_envelope(path: &std::path::Path, env: &Envelope) -> Result<()> {
    let json = serde_json::to_string_pretty(env)?;
    atomic_write(path, json.as_bytes())
}

pub fn read_envelope(path: &std::path::Path) -> Result<Envelope> {
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not an envelope", path.display()))
}

/// Ids of the queued messages, in the order they were queued (an
/// unreadable envelope sorts first, by id; sending reports it).
pub fn queued(dir: &GameDir) -> Result<Vec<String>> {
    let mut with_seq: Vec<(u128, String)> = queued_ids(dir)?
        .into_iter()
        .map(|id| {
            let seq = read_envelope(&env_path(dir, &id)).map(|e| e.seq).unwrap_or(0);
            (seq, id)
        })
        .collect();
    with_seq.sort();
    Ok(with_seq.into_iter().map(|(_, id)| id).collect())
}

/// Ids of the queued messages, sorted by id.
fn queued_ids(dir: &GameDir) -> Result<Vec<String>> {
    let d = dir.outbox();
    if !d.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for e in fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))? {
        let p = e?.path();
        if p.extension().and_then(|x| x.to_str()) == Some("eml")
            && let Some(stem) = p.file_stem().and_then(|s| s.to_str())
        {
            out.push(stem.to_string());
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail(name: &str, subject: &str) -> OutMail {
        OutMail {
            id: stable_id(&["ack", "abc"]),
            from: Addr::new(Some("GM"), "gm@example.org"),
            to: vec![Addr::new(Some(name), "ann@example.org")],
            cc: vec![],
            subject: subject.into(),
            in_reply_to: Some("orig@x".into()),
            body: "Bonjour, Empereur\n".into(),
            attachments: vec![],
            date: DateTime::parse_from_rfc3339("2026-11-30T10:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
        }
    }

    #[test]
    fn player_text_cannot_inject_headers() {
        let m = mail("Ann\r\nBcc: evil@x.org", "orders\r\nBcc: evil@x.org");
        let bytes = String::from_utf8(m.build().unwrap()).unwrap();
        assert!(!bytes.contains("\nBcc:"), "{bytes}");
        assert!(
            bytes.contains(&format!("Message-ID: <{}@example.org>", m.id)),
            "{bytes}"
        );
        assert!(bytes.contains("In-Reply-To: <orig@x>"));
        assert!(bytes.contains("Auto-Submitted: auto-replied"));
        assert!(bytes.contains("X-Loop: gm@example.org"));
        let mut report = mail("Ann", "report");
        report.in_reply_to = None;
        let bytes = String::from_utf8(report.build().unwrap()).unwrap();
        assert!(bytes.contains("Auto-Submitted: auto-generated"), "{bytes}");
    }

    #[test]
    fn headers_stay_short_and_clean_whatever_the_sender_wrote() {
        let long = "x".repeat(5000);
        let mut m = mail(
            &format!("{long}\0\u{202e}"),
            &format!("{long} {long}\0\r\nBcc: e@x.org"),
        );
        m.in_reply_to = Some(format!("{long}@x"));
        let bytes = m.build().unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let head = &text[..text.find("\r\n\r\n").unwrap()];
        for line in head.split("\r\n") {
            assert!(line.len() <= 998, "{} octets: {}", line.len(), &line[..80]);
        }
        assert!(!bytes.contains(&0), "NUL in the message");
        assert!(!head.contains("\nBcc:"));
        assert!(!head.contains("In-Reply-To"), "an unfoldable id is not echoed");
    }

    #[test]
    fn bodies_are_crlf_in_one_pass() {
        assert_eq!(crlf("a\nb\r\nc\n"), "a\r\nb\r\nc\r\n");
        // lettre converts a body's bare LFs itself, one insertion (and one
        // shift of the rest) at a time: quadratic. Ours leaves it none.
        let body = "MOVE corps 1 -> Alsace\nline two\r\n\n".repeat(100);
        let mut m = mail("Ann", "crlf");
        m.body = body.clone();
        let built = String::from_utf8(m.build().unwrap()).unwrap();
        assert!(built.contains(&crlf(&body)), "the body goes out as crlf made it");
        assert!(!built.replace("\r\n", "").contains('\n'), "no bare LF");
        // And so building stays near linear: 32x the text took 90x to 250x
        // the time (debug build, alone and beside the whole suite: cache
        // and allocator effects); lettre's insertions make that 1000x.
        let build = |kib: usize| {
            let mut m = mail("Ann", "big");
            m.body = "MOVE corps 1 -> Alsace\n".repeat(kib * 1024 / 23);
            let t = std::time::Instant::now();
            assert!(m.build().unwrap().len() > kib * 1024);
            t.elapsed()
        };
        // Interleaved, best of seven: other tests share the machine.
        let (mut small, mut big) = (std::time::Duration::MAX, std::time::Duration::MAX);
        for _ in 0..7 {
            small = small.min(build(64));
            big = big.min(build(2048));
        }
        let ratio = big.as_secs_f64() / small.as_secs_f64();
        assert!(ratio < 600.0, "64 KiB {small:?}, 2 MiB {big:?}: ratio {ratio:.1}");
    }

    #[test]
    fn queue_replaces_and_never_requeues_a_sent_message() {
        let d = tempfile::tempdir().unwrap();
        let g = GameDir::new(d.path());
        let m = mail("Ann", "x");
        assert_eq!(queue(&g, &m).unwrap(), Queued::New);
        assert_eq!(queue(&g, &m).unwrap(), Queued::Replaced);
        assert_eq!(queued(&g).unwrap(), vec![m.id.clone()]);
        fs::create_dir_all(g.sent()).unwrap();
        fs::rename(eml_path(&g, &m.id), sent_eml_path(&g, &m.id)).unwrap();
        assert_eq!(queue(&g, &m).unwrap(), Queued::AlreadySent);
        assert!(queued(&g).unwrap().is_empty());
    }
}
