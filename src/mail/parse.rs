//! Parse a raw message with mail-parser: the addresses ingest needs and
//! the text that holds the orders. Preference: the text/plain body, else
//! the HTML body converted to text, else a `.txt` attachment; among
//! these, the first that has order header lines. Charsets and transfer
//! encodings are decoded by mail-parser. HTML is turned into text here,
//! keeping its line structure (`<br>`, `<p>`, `<div>`, `<li>`, `<tr>`
//! end lines; `<blockquote>` is quoted with `>`). Text after a reply
//! marker (`-----Original Message-----`, `On … wrote:`, an Outlook
//! `From:`/`Sent:` block) is quoted mail and is cut, like `>` lines.

use super::prescan::prescan;
use mail_parser::{MessageParser, MimeHeaders};

/// Where the orders text was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextSource {
    Plain,
    Html,
    Attachment(String),
}

impl std::fmt::Display for TextSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextSource::Plain => write!(f, "text/plain body"),
            TextSource::Html => write!(f, "HTML body (as text)"),
            TextSource::Attachment(n) => write!(f, "attachment {n}"),
        }
    }
}

/// What ingest needs of a message.
#[derive(Clone, Debug, Default)]
pub struct Incoming {
    pub message_id: Option<String>,
    /// The From address (lower case).
    pub from: Option<String>,
    pub from_name: Option<String>,
    /// To, Cc, Delivered-To and X-Original-To addresses (lower case).
    pub recipients: Vec<String>,
    pub subject: Option<String>,
    /// An automatic message (bounce, vacation reply, list mail): never
    /// answered. `auto_reason` says what gave it away.
    pub automatic: bool,
    pub auto_reason: Option<String>,
    /// `X-Loop` values (lower case): a message carrying the game's own
    /// address there came from the game.
    pub x_loop: Vec<String>,
    /// The `Date:` of the message.
    pub date: Option<chrono::DateTime<chrono::Utc>>,
    /// Message-IDs this message answers (In-Reply-To and References),
    /// without brackets.
    pub references: Vec<String>,
    pub text: Option<(String, TextSource)>,
}

/// Parse a whole message.
pub fn parse(raw: &[u8]) -> Incoming {
    parse_inner(raw, true)
}

/// Parse only the header block (for a message over the size limit: the
/// reply needs its sender, nothing more).
pub fn parse_headers(raw: &[u8]) -> Incoming {
    let end = find_header_end(raw).unwrap_or(raw.len().min(64 * 1024));
    parse_inner(&raw[..end], false)
}

fn find_header_end(raw: &[u8]) -> Option<usize> {
    let crlf = raw.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4);
    let lf = raw.windows(2).position(|w| w == b"\n\n").map(|p| p + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn parse_inner(raw: &[u8], body: bool) -> Incoming {
    let Some(m) = MessageParser::default().parse(raw) else {
        return Incoming::default();
    };
    let lower = |s: &str| s.trim().to_ascii_lowercase();
    let mut inc = Incoming {
        message_id: m.message_id().map(str::to_string),
        ..Incoming::default()
    };
    if let Some(a) = m.from().and_then(|a| a.first()) {
        inc.from = a.address().map(lower);
        inc.from_name = a.name().map(str::to_string);
    }
    for list in [m.to(), m.cc()].into_iter().flatten() {
        inc.recipients
            .extend(list.iter().filter_map(|a| a.address()).map(lower));
    }
    for h in ["Delivered-To", "X-Original-To"] {
        if let Some(v) = m.header_raw(h) {
            let v = v.trim().trim_start_matches('<').trim_end_matches('>');
            inc.recipients.push(lower(v));
        }
    }
    inc.subject = m.subject().map(str::to_string);
    inc.x_loop = m
        .header_values("X-Loop")
        .filter_map(|v| v.as_text())
        .map(|v| lower(v.trim_matches(['<', '>', ' '])))
        .collect();
    inc.date = m
        .date()
        .and_then(|d| chrono::DateTime::from_timestamp(d.to_timestamp(), 0));
    for h in ["In-Reply-To", "References"] {
        if let Some(v) = m.header_raw(h) {
            inc.references.extend(
                v.split(|c: char| c.is_whitespace() || c == '<' || c == '>' || c == ',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
        }
    }
    inc.auto_reason = automatic(&m, inc.from.as_deref(), inc.subject.as_deref());
    inc.automatic = inc.auto_reason.is_some();
    if !body {
        return inc;
    }
    let mut candidates: Vec<(String, TextSource)> = Vec::new();
    let plain: Vec<String> = m
        .text_bodies()
        .filter(|p| !p.is_text_html())
        .filter_map(|p| p.text_contents().map(str::to_string))
        .collect();
    if !plain.is_empty() {
        candidates.push((plain.join("\n"), TextSource::Plain));
    } else if m.html_body_count() > 0
        && let Some(h) = m.body_html(0)
    {
        candidates.push((html_to_text(&h), TextSource::Html));
    }
    for a in m.attachments() {
        let name = a.attachment_name().unwrap_or("").to_string();
        let is_txt = name.to_ascii_lowercase().ends_with(".txt")
            || a.content_type().is_some_and(|c| {
                c.ctype().eq_ignore_ascii_case("text") && c.subtype().is_some_and(|s| s.eq_ignore_ascii_case("plain"))
            });
        if !is_txt {
            continue;
        }
        let text = match a.text_contents() {
            Some(t) => t.to_string(),
            None => String::from_utf8_lossy(a.contents()).into_owned(),
        };
        let shown = if name.is_empty() {
            "(unnamed .txt)".to_string()
        } else {
            name
        };
        candidates.push((text, TextSource::Attachment(shown)));
    }
    let with_header = candidates.iter().position(|(t, _)| prescan(t).any());
    let pick = with_header.or_else(|| candidates.iter().position(|(t, _)| !t.trim().is_empty()));
    inc.text = pick
        .map(|i| candidates.swap_remove(i))
        .map(|(t, src)| (cut_reply(&t), src));
    inc
}

/// Why a message is automatic and must never be answered (RFC 3834 and
/// the headers list servers, vacation responders and bounces carry), or
/// `None` for a message a person sent.
fn automatic(m: &mail_parser::Message<'_>, from: Option<&str>, subject: Option<&str>) -> Option<String> {
    let raw = |h: &str| m.header_raw(h).map(|v| v.trim().to_ascii_lowercase());
    if let Some(v) = raw("Auto-Submitted")
        && v.split(';').next().unwrap_or("").trim() != "no"
    {
        return Some(format!("Auto-Submitted: {v}"));
    }
    for h in [
        "X-Autoreply",
        "X-Autorespond",
        "X-Autoresponder",
        "List-Id",
        "List-Unsubscribe",
        "List-Post",
    ] {
        if m.header_raw(h).is_some() {
            return Some(format!("{h} header"));
        }
    }
    if let Some(v) = raw("Precedence")
        && ["bulk", "junk", "list", "auto_reply"].contains(&v.as_str())
    {
        return Some(format!("Precedence: {v}"));
    }
    if raw("Return-Path").is_some_and(|v| v == "<>") {
        return Some("empty Return-Path (a bounce)".into());
    }
    // Delivery-status and read reports, by content, whoever sent them.
    let report = m.parts.iter().any(|p| {
        p.content_type().is_some_and(|c| {
            let t = c.ctype().to_ascii_lowercase();
            let s = c.subtype().unwrap_or("").to_ascii_lowercase();
            (t == "multipart" && s == "report")
                || (t == "message"
                    && (s == "delivery-status" || s == "disposition-notification" || s == "feedback-report"))
        })
    });
    if report {
        return Some("a delivery or read report".into());
    }
    if let Some(f) = from {
        let local = f.split('@').next().unwrap_or("");
        if [
            "mailer-daemon",
            "postmaster",
            "noreply",
            "no-reply",
            "do-not-reply",
            "donotreply",
        ]
        .contains(&local)
        {
            return Some(format!("sent by {local}"));
        }
    }
    if let Some(s) = subject {
        let s = s.trim().to_lowercase();
        let vacation = [
            "auto:",
            "automatic reply",
            "autoreply",
            "auto-reply",
            "out of office",
            "out of the office",
            "réponse automatique",
            "abwesenheitsnotiz",
            "automatische antwort",
        ];
        if vacation.iter().any(|v| s.starts_with(v)) {
            return Some("an out-of-office subject".into());
        }
    }
    None
}

/// The text before the first reply marker: what follows is someone
/// else's mail (an earlier report, the phase opening) and holds no
/// orders of this sender.
pub fn cut_reply(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let is_marker = |i: usize| -> bool {
        let t = lines[i].trim();
        let low = t.to_lowercase();
        let dashed = low.starts_with("--") && low.ends_with("--") && {
            let inner = low.trim_matches(|c: char| c == '-' || c.is_whitespace());
            [
                "original message",
                "forwarded message",
                "message d'origine",
                "ursprüngliche nachricht",
                "mensaje original",
            ]
            .contains(&inner)
        };
        let underscores = t.len() >= 20 && t.chars().all(|c| c == '_');
        let wrote = |l: &str| {
            let l = l.trim().to_lowercase();
            l.ends_with("wrote:") || l.ends_with("a écrit :") || l.ends_with("a écrit:") || l.ends_with("schrieb:")
        };
        let opener = low.starts_with("on ") || low.starts_with("le ") || low.starts_with("am ");
        let said = opener && (wrote(t) || lines.get(i + 1).is_some_and(|n| wrote(n)));
        let outlook = low.starts_with("from:")
            && lines[i + 1..].iter().take(4).any(|n| {
                let n = n.trim().to_lowercase();
                n.starts_with("sent:") || n.starts_with("date:")
            });
        dashed || underscores || said || outlook
    };
    match (0..lines.len()).find(|&i| is_marker(i)) {
        Some(i) => {
            let mut out = lines[..i].join("\n");
            out.push('\n');
            out
        }
        None => text.to_string(),
    }
}

/// HTML as text, one line per line the reader saw: block ends and `<br>`
/// become line breaks, `<blockquote>` content is quoted with `> `, style
/// and script are dropped, entities are decoded.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::new();
    let mut quote = 0usize;
    let mut skip: Option<&'static str> = None;
    let mut rest = html;
    let newline = |out: &mut String, quote: usize| {
        out.push('\n');
        for _ in 0..quote {
            out.push_str("> ");
        }
    };
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            if skip.is_none() {
                push_text(&mut out, rest, quote);
            }
            break;
        };
        if skip.is_none() {
            push_text(&mut out, &rest[..lt], quote);
        }
        let after = &rest[lt + 1..];
        let Some(gt) = after.find('>') else {
            break;
        };
        let tag = after[..gt].trim();
        rest = &after[gt + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if let Some(s) = skip {
            if closing && name == s {
                skip = None;
            }
            continue;
        }
        match name.as_str() {
            "style" | "script" | "head" | "title" if !closing => {
                skip = Some(match name.as_str() {
                    "style" => "style",
                    "script" => "script",
                    "head" => "head",
                    _ => "title",
                })
            }
            "blockquote" => {
                quote = if closing { quote.saturating_sub(1) } else { quote + 1 };
                let cut = out.rfind('\n').map_or(0, |i| i + 1);
                if out[cut..].trim_start_matches(['>', ' ']).is_empty() {
                    out.truncate(cut);
                    for _ in 0..quote {
                        out.push_str("> ");
                    }
                } else {
                    newline(&mut out, quote);
                }
            }
            "br" => newline(&mut out, quote),
            // A block starts and ends a line, but makes no empty one.
            "p" | "div" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "pre" | "table" | "ul" | "ol" => {
                let line = out.rsplit('\n').next().unwrap_or("");
                if !line.trim_start_matches(['>', ' ']).is_empty() {
                    newline(&mut out, quote);
                }
            }
            _ => {}
        }
    }
    // Drop the blank lines block tags leave around each other.
    let mut lines: Vec<String> = Vec::new();
    for l in out.lines() {
        let l = l.trim_end();
        let blank = l.trim_start_matches(['>', ' ']).is_empty();
        if blank
            && lines
                .last()
                .is_none_or(|p: &String| p.trim_start_matches(['>', ' ']).is_empty())
        {
            continue;
        }
        lines.push(l.to_string());
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// Text between tags: whitespace collapsed (HTML ignores line breaks in
/// source), entities decoded.
fn push_text(out: &mut String, raw: &str, _quote: usize) {
    let mut prev_space = out.ends_with(' ') || out.ends_with('\n');
    for c in decode_entities(raw).chars() {
        let c = if c == '\u{a0}' { ' ' } else { c };
        if c.is_whitespace() {
            if !prev_space {
                out.push(' ');
                prev_space = true;
            }
        } else {
            out.push(c);
            prev_space = false;
        }
    }
}

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ => {
                    let n = name.strip_prefix('#')?;
                    let v = match n.strip_prefix(['x', 'X']) {
                        Some(h) => u32::from_str_radix(h, 16).ok()?,
                        None => n.parse().ok()?,
                    };
                    char::from_u32(v)
                }
            }?;
            Some((c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_addresses_and_plain_text() {
        let raw = b"From: Ann <ANN@Example.org>\r\nTo: gm@example.org\r\nDelivered-To: <game@example.org>\r\nMessage-ID: <1@x>\r\nSubject: orders\r\n\r\nGAME demo\r\n";
        let i = parse(raw);
        assert_eq!(i.from.as_deref(), Some("ann@example.org"));
        assert_eq!(i.from_name.as_deref(), Some("Ann"));
        assert_eq!(i.recipients, vec!["gm@example.org", "game@example.org"]);
        assert_eq!(i.message_id.as_deref(), Some("1@x"));
        let (t, src) = i.text.unwrap();
        assert_eq!(src, TextSource::Plain);
        assert!(t.contains("GAME demo"));
        assert!(!i.automatic);
    }

    #[test]
    fn bounces_are_automatic_and_headers_only_skips_the_body() {
        let raw = b"From: MAILER-DAEMON@example.org\r\nTo: gm@example.org\r\n\r\nGAME demo\r\n";
        assert!(parse(raw).automatic);
        let raw = b"From: a@b.org\r\nAuto-Submitted: auto-replied\r\n\r\nx\r\n";
        assert!(parse(raw).automatic);
        let h = parse_headers(b"From: a@b.org\r\n\r\nGAME demo\r\n");
        assert_eq!(h.from.as_deref(), Some("a@b.org"));
        assert!(h.text.is_none());
    }

    #[test]
    fn html_keeps_its_lines_and_quotes_blockquotes() {
        let t = html_to_text(
            "<html><head><style>p{x}</style></head><body><p>GAME demo<br>POWER austria<BR/>PASSWORD aspern</p><div>MOVE a &amp; b&nbsp;-&gt; c</div><ul><li>one</li><li>two</li></ul><blockquote>PASSWORD old<br>END</blockquote><p>END</p></body></html>",
        );
        assert_eq!(
            t,
            "GAME demo\nPOWER austria\nPASSWORD aspern\nMOVE a & b -> c\none\ntwo\n> PASSWORD old\n> END\nEND\n"
        );
    }

    #[test]
    fn reply_markers_end_the_sender_s_text() {
        for marker in [
            "-----Original Message-----",
            "On Mon, 30 Nov 2026 at 08:00, Empereur demo <gm@demo.example.org> wrote:",
            "On Mon, 30 Nov 2026 at 08:00, Empereur demo\n<gm@demo.example.org> wrote:",
            "Le lun. 30 nov. 2026 à 08:00, Empereur a écrit :",
            "________________________________\nFrom: Empereur\nSent: Monday",
            "From: Empereur demo <gm@demo.example.org>\nDate: Mon, 30 Nov 2026",
        ] {
            let t = format!("POWER france\nMOVE x\n\n{marker}\nPASSWORD old\nMOVE y\n");
            assert_eq!(cut_reply(&t), "POWER france\nMOVE x\n\n", "{marker}");
        }
        assert_eq!(cut_reply("On to Vienna\nMOVE x\n"), "On to Vienna\nMOVE x\n");
    }
}
