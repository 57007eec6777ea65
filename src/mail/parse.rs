//! Parse a raw message with mail-parser: the addresses ingest needs and
//! the text that holds the orders. Preference: the text/plain body, else
//! the HTML body converted to text, else a `.txt` attachment; among
//! these, the first that has order header lines. Charsets and transfer
//! encodings are decoded by mail-parser. HTML is turned into text by
//! the `html2text` crate ([`html_to_text`]), keeping its line structure
//! (block elements end lines; `<blockquote>` is quoted with `>`). Text after a reply
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
    /// `Authentication-Results` values (RFC 8601), top first: what
    /// `mail::authres` reads when the game trusts its server's.
    pub authentication_results: Vec<String>,
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
    inc.authentication_results = m
        .headers_raw()
        .filter(|(name, _)| name.eq_ignore_ascii_case("Authentication-Results"))
        .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
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
    // RFC 3834 §5: a value is a token, in any case, that may carry
    // parameters after `;` and comments in parentheses.
    if let Some(v) = raw("Auto-Submitted")
        && header_token(&v) != "no"
    {
        return Some(format!("Auto-Submitted: {}", header_token(&v)));
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
    if let Some(v) = raw("Precedence").map(|v| header_token(&v))
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

/// The token of a structured header value (RFC 5322 §3.2.2, RFC 3834
/// §5): comments (nested parentheses, with `\\` escapes) removed, the
/// parameters after `;` dropped, lower case. `No (by hand)` is `no`;
/// `Bulk ; list` is `bulk`; an empty value is empty.
pub fn header_token(value: &str) -> String {
    let mut out = String::new();
    let (mut depth, mut escaped) = (0usize, false);
    for c in value.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if depth > 0 => escaped = true,
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            ';' if depth == 0 => break,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.trim().to_ascii_lowercase()
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

/// HTML as text, one line per line the reader saw, by the maintained
/// `html2text` crate (a real HTML parser: every named entity such as
/// `&uuml;` or `&rarr;`, block elements on their own lines, style,
/// script and head dropped), with [`OrderText`]'s plain marks:
/// `<blockquote>` content is quoted with `> ` (quoted mail is skipped like
/// `>` lines), and nothing is added that a player did not write. Runs
/// of blank lines become one.
pub fn html_to_text(html: &str) -> String {
    // Wide enough that no order line is wrapped; wider lines overflow.
    const WIDTH: usize = 400;
    let text = html2text::config::with_decorator(OrderText)
        .allow_width_overflow()
        .string_from_read(html.as_bytes(), WIDTH)
        .unwrap_or_default();
    let mut lines: Vec<String> = Vec::new();
    for l in text.lines() {
        let l = l.replace('\u{a0}', " ");
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
    while lines
        .last()
        .is_some_and(|l| l.trim_start_matches(['>', ' ']).is_empty())
    {
        lines.pop();
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// How HTML marks become text in an order mail: a quote is `> ` (so
/// quoted mail is skipped), and links, emphasis, headings and list items
/// add nothing (`* MOVE …` or `[Vienna]` would not read as an order).
#[derive(Clone, Debug)]
struct OrderText;

impl html2text::render::TextDecorator for OrderText {
    type Annotation = ();
    fn decorate_link_start(&mut self, _url: &str) -> (String, ()) {
        (String::new(), ())
    }
    fn decorate_link_end(&mut self) -> String {
        String::new()
    }
    fn decorate_em_start(&self) -> (String, ()) {
        (String::new(), ())
    }
    fn decorate_em_end(&self) -> String {
        String::new()
    }
    fn decorate_strong_start(&self) -> (String, ()) {
        (String::new(), ())
    }
    fn decorate_strong_end(&self) -> String {
        String::new()
    }
    fn decorate_strikeout_start(&self) -> (String, ()) {
        (String::new(), ())
    }
    fn decorate_strikeout_end(&self) -> String {
        String::new()
    }
    fn decorate_code_start(&self) -> (String, ()) {
        (String::new(), ())
    }
    fn decorate_code_end(&self) -> String {
        String::new()
    }
    fn decorate_preformat_first(&self) {}
    fn decorate_preformat_cont(&self) {}
    fn decorate_image(&mut self, _src: &str, title: &str) -> (String, ()) {
        (title.to_string(), ())
    }
    fn header_prefix(&self, _level: usize) -> String {
        String::new()
    }
    fn quote_prefix(&self) -> String {
        "> ".to_string()
    }
    fn unordered_item_prefix(&self) -> String {
        String::new()
    }
    fn ordered_item_prefix(&self, _i: i64) -> String {
        String::new()
    }
    fn make_subblock_decorator(&self) -> Self {
        OrderText
    }
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
    fn reports_are_automatic_by_content_whoever_sends_them() {
        let mime = |ct: &str, part: &str| {
            format!(
                "From: a@b.org\r\nMIME-Version: 1.0\r\nContent-Type: {ct}; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b\r\nContent-Type: {part}\r\n\r\nReporting-MTA: dns; x\r\n--b--\r\n"
            )
        };
        let reason = |raw: String| parse(raw.as_bytes()).auto_reason;
        let report = Some("a delivery or read report".to_string());
        // A delivery status notification (RFC 3464), from no daemon.
        let dsn = mime(
            "multipart/report; report-type=delivery-status",
            "message/delivery-status",
        );
        assert_eq!(reason(dsn), report);
        assert_eq!(reason(mime("multipart/report", "text/plain")), report);
        // A report part is enough, whatever holds it.
        for part in [
            "message/delivery-status",
            "message/disposition-notification",
            "message/feedback-report",
        ] {
            assert_eq!(reason(mime("multipart/mixed", part)), report, "{part}");
        }
        // A player forwarding a mail (message/rfc822) sends no report.
        assert_eq!(reason(mime("multipart/mixed", "message/rfc822")), None);
    }

    #[test]
    fn html_keeps_its_lines_and_quotes_blockquotes() {
        let t = html_to_text(
            "<html><head><style>p{x}</style></head><body><p>GAME demo<br>POWER austria<BR/>PASSWORD aspern</p><div>MOVE a &amp; b&nbsp;-&gt; c</div><ul><li>one</li><li>two</li></ul><blockquote>PASSWORD old<br>END</blockquote><p>END</p></body></html>",
        );
        assert_eq!(
            t,
            "GAME demo\nPOWER austria\nPASSWORD aspern\n\nMOVE a & b -> c\none\ntwo\n\n> PASSWORD old\n> END\n\nEND\n"
        );
        // Named entities of any kind, and block elements on lines of their own.
        let t = html_to_text(
            "<div>W&uuml;rttemberg &rarr; Ulm&nbsp;x</div><div><a href='x'>Vienna</a> <b>holds</b></div><h2>END</h2>",
        );
        assert_eq!(t, "Württemberg → Ulm x\nVienna holds\n\nEND\n");
    }

    #[test]
    fn header_values_carry_comments_parameters_and_any_case() {
        assert_eq!(header_token("No (sent by hand)"), "no");
        assert_eq!(header_token(" (a (nested\\) one)) NO"), "no");
        assert_eq!(header_token("Bulk ; comment"), "bulk");
        assert_eq!(header_token("auto-generated; x=(y;z)"), "auto-generated");
        assert_eq!(header_token("(only a comment)"), "");
        let auto = |h: &str| parse(format!("From: a@b.org\r\n{h}\r\n\r\nx\r\n").as_bytes()).automatic;
        assert!(!auto("Auto-Submitted: No (comment)"));
        assert!(!auto("Auto-Submitted: nO"));
        assert!(auto("Auto-Submitted: Auto-Replied (vacation)"));
        assert!(auto("Auto-Submitted: (no) auto-generated"));
        assert!(auto("Precedence: Bulk ; comment"));
        assert!(auto("Precedence: (x) JUNK"));
        assert!(!auto("Precedence: first-class"));
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
