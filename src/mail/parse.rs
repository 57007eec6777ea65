//! Parse a raw message with mail-parser: the addresses ingest needs and
//! the text that holds the orders. Preference: the text/plain body, else
//! the HTML body converted to text, else a `.txt` attachment; among
//! these, the first that has order header lines. Charsets and transfer
//! encodings are decoded by mail-parser.

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
    /// An automatic message (bounce, vacation reply): never answered.
    pub automatic: bool,
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
    // RFC 3834: anything but `Auto-Submitted: no` is automatic; bounces
    // come from MAILER-DAEMON or with an empty Return-Path.
    let auto = m
        .header_raw("Auto-Submitted")
        .is_some_and(|v| !v.trim().eq_ignore_ascii_case("no"));
    let daemon = inc
        .from
        .as_deref()
        .is_some_and(|f| f.starts_with("mailer-daemon@") || f.starts_with("postmaster@"));
    let empty_return = m.header_raw("Return-Path").is_some_and(|v| v.trim() == "<>");
    let list = m.header_raw("Precedence").is_some_and(|v| {
        let v = v.trim().to_ascii_lowercase();
        v == "bulk" || v == "junk" || v == "list"
    });
    inc.automatic = auto || daemon || empty_return || list;
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
        && let Some(t) = m.body_text(0)
    {
        // mail-parser converts an HTML-only body to text.
        candidates.push((t.into_owned(), TextSource::Html));
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
    inc.text = pick.map(|i| candidates.swap_remove(i));
    inc
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
}
