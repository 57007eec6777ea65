//! The order language: lexer, parser, name resolution and validation.
//! See `orders/README.md` for the language reference.
//!
//! [`check`] is the one entry point: text in, [`Checked`] out. It owns
//! what a message means (header, which lines are orders, quoting and
//! signatures); `lexer` splits a line into tokens with spans; `parse`
//! reads one order and resolves its names against the map and the state;
//! `text` writes the normalised form. Whether the phase can carry the
//! orders out is [`crate::rules::legality::judge`]'s answer, given the
//! whole set of parsed orders: the engine asks the same function.

pub mod ast;
pub mod lexer;
pub mod parse;
pub mod text;

use crate::diagnostic::{Diagnostic, Problem, Span, suggest};
use crate::ids::{PhaseId, PowerId};
use crate::scenario::Scenario;
use crate::state::State;
use ast::{Args, Header, OrderLine};

/// The result of checking an order text against a state: the header, the
/// accepted orders (normalised), and every diagnostic (errors for the
/// rejected lines, warnings). The same value feeds `check`, `submit`,
/// mail acknowledgements and reports.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    pub header: Header,
    pub accepted: Vec<OrderLine>,
    pub diagnostics: Vec<Diagnostic>,
    /// Orders that parsed but that the phase cannot carry out (each has
    /// its error among the diagnostics).
    pub refused: Vec<OrderLine>,
}

impl Checked {
    pub fn all_accepted(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Header keywords.
const HEADER: &[&str] = &["game", "power", "password", "phase", "entropy"];

/// A header line's value: the text after the keyword (and an optional
/// colon), trimmed, and the 1-based column where it starts.
fn rest_of(line: &str, key_len: usize) -> (&str, usize) {
    let lead = line.len() - line.trim_start().len();
    let after_key = (lead + key_len).min(line.len());
    let mut start = after_key;
    let tail = &line[after_key..];
    let skipped = tail.len() - tail.trim_start().len();
    start += skipped;
    if line[start..].starts_with(':') {
        start += 1;
        let t = &line[start..];
        start += t.len() - t.trim_start().len();
    }
    let value = line[start..].trim_end();
    let col = line[..start].chars().count() + 1;
    (value, col)
}

/// The first word of a line, lowercase (a colon ends it: `POWER: France`).
fn first_word(line: &str) -> String {
    line.trim()
        .split(|c: char| c.is_whitespace() || c == ':')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Cut a `#` comment.
fn uncomment(line: &str) -> &str {
    match line.find('#') {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Parse, resolve names and judge the legality of an order text for `power` (or the
/// power named in its `POWER` line) in the open phase of `state`.
/// Quoted text (`>` lines), signatures (`-- `) and everything after `END`
/// are ignored. Never panics, whatever the input.
pub fn check(source: &str, scenario: &Scenario, state: &State, power: Option<PowerId>) -> Checked {
    let mut msg = Message::read(source, state);
    let power = msg.which_power(power);

    let stale = msg.header.phase.filter(|ph| *ph != state.phase);
    if let Some(ph) = stale {
        msg.diags.push(
            Diagnostic::error(
                Problem::StalePhase,
                format!("orders are for phase {ph} but the open phase is {}", state.phase),
                msg.phase_line.unwrap_or(Span::line(1)),
            )
            .with_help("no order of this message is applied; send orders for the open phase"),
        );
    }

    let mut out = Checked {
        header: std::mem::take(&mut msg.header),
        ..Checked::default()
    };
    let mut diags = std::mem::take(&mut msg.diags);
    if let Some(power) = power {
        let parsed = parse_lines(scenario, state, power, &msg.order_lines, &mut diags);
        let set: Vec<&ast::Order> = parsed.iter().map(|(l, _)| &l.order).collect();
        let verdicts = crate::rules::legality::judge(scenario, state, power, &set);
        for ((line, args), verdict) in parsed.into_iter().zip(verdicts) {
            match verdict {
                Ok(()) => out.accepted.push(line),
                Err(why) => {
                    // The caret goes under the word at fault, or under the
                    // whole order when no one word is.
                    let span = why
                        .arg(&line.order)
                        .and_then(|a| args.span_of_writing(&a, why.later()))
                        .unwrap_or(line.span);
                    let d = Diagnostic::error(why.code(), format!("{why} ({})", why.rule()), span);
                    diags.push(match why.help() {
                        Some(h) => d.with_help(h),
                        None => d,
                    });
                    out.refused.push(line);
                }
            }
        }
    }

    // A message for another game or phase applies nothing (never to the
    // wrong phase); say so on each order it held.
    if stale.is_some() || msg.game_bad || power.is_none() {
        for o in out.accepted.drain(..) {
            diags.push(Diagnostic::error(
                Problem::NotApplied,
                format!("not applied: {}", o.text),
                o.span,
            ));
        }
        if let Some((r, line)) = out.header.readiness.take() {
            diags.push(Diagnostic::error(
                Problem::NotApplied,
                format!("not applied: {}", r.word()),
                Span::line(line),
            ));
        }
        if let Some((zone, line)) = out.header.timezone.take() {
            diags.push(Diagnostic::error(
                Problem::NotApplied,
                format!("not applied: TIMEZONE {zone}"),
                Span::line(line),
            ));
        }
    }
    diags.sort_by_key(|d| (d.span.line, d.span.col));
    out.diagnostics = diags;
    out
}

/// An order message read line by line: its header, its order lines (with
/// their line numbers), where the POWER and PHASE values stand, and the
/// diagnostics of the header.
struct Message<'s> {
    state: &'s State,
    header: Header,
    diags: Vec<Diagnostic>,
    order_lines: Vec<(usize, &'s str)>,
    power_line: Option<Span>,
    phase_line: Option<Span>,
    game_bad: bool,
    seen: Vec<&'static str>,
}

impl<'s> Message<'s> {
    fn read(source: &'s str, state: &'s State) -> Message<'s> {
        let mut msg = Message {
            state,
            header: Header::default(),
            diags: Vec::new(),
            order_lines: Vec::new(),
            power_line: None,
            phase_line: None,
            game_bad: false,
            seen: Vec::new(),
        };
        // Greetings above the first header line are not orders.
        let preamble = source
            .lines()
            .position(|l| HEADER.contains(&first_word(l).as_str()))
            .unwrap_or(0);
        for (i, raw) in source.lines().enumerate() {
            let no = i + 1;
            let t = raw.trim();
            if t.starts_with('>') || i < preamble {
                continue; // quoted earlier mail, greetings
            }
            if raw == "-- " || t == "--" {
                break; // signature block
            }
            let first = first_word(t);
            if first == "end" || first == "signoff" {
                break;
            }
            if let Some(&key) = HEADER.iter().find(|k| **k == first) {
                msg.header_line(key, raw, no);
                continue;
            }
            let body = uncomment(raw);
            if body.trim().is_empty() {
                continue;
            }
            // NO ORDERS / PASS: an explicit empty submission.
            let words: Vec<String> = body.split_whitespace().map(str::to_ascii_uppercase).collect();
            if words == ["NO", "ORDERS"] || words == ["PASS"] {
                msg.header.no_orders = true;
                continue;
            }
            if let [w] = words.as_slice()
                && let Some(r) = [ast::Readiness::Ready, ast::Readiness::Wait]
                    .into_iter()
                    .find(|r| r.word() == w)
            {
                msg.readiness_line(r, raw, no);
                continue;
            }
            if words.first().is_some_and(|w| w == "TIMEZONE") {
                msg.zone_line(raw, body, no);
                continue;
            }
            msg.order_lines.push((no, body));
        }
        msg
    }

    /// A header line `raw` (line `no`) starting with keyword `key`.
    fn header_line(&mut self, key: &'static str, raw: &str, no: usize) {
        let state = self.state;
        let (value, col) = rest_of(raw, key.len());
        let kw_span = Span::new(
            no,
            raw.chars().count() - raw.trim_start().chars().count() + 1,
            key.len(),
        );
        if self.seen.contains(&key) {
            self.diags.push(Diagnostic::error(
                Problem::DuplicateHeader,
                format!("a second {} line", key.to_uppercase()),
                kw_span,
            ));
            return;
        }
        self.seen.push(key);
        // Values of GAME, POWER and PHASE may carry a comment.
        let short = uncomment(value).trim();
        let short_span = Span::new(no, col, short.chars().count().max(1));
        if value.is_empty() || (key != "password" && key != "entropy" && short.is_empty()) {
            self.diags.push(Diagnostic::error(
                Problem::Syntax,
                format!("{} needs a value", key.to_uppercase()),
                kw_span,
            ));
            return;
        }
        match key {
            "game" => {
                self.header.game = Some(short.to_string());
                if !short.eq_ignore_ascii_case(&state.game) {
                    self.game_bad = true;
                    self.diags.push(
                        Diagnostic::error(
                            Problem::WrongGame,
                            format!("these orders are for game '{short}', but this is game '{}'", state.game),
                            short_span,
                        )
                        .with_help("no order of this message is applied"),
                    );
                }
            }
            "power" => self.power_value(short, short_span),
            "password" => self.header.password = Some(value.to_string()),
            "entropy" => self.header.entropy = Some(value.to_string()),
            _ => match short.parse::<PhaseId>() {
                Ok(ph) => {
                    self.header.phase = Some(ph);
                    self.phase_line = Some(short_span);
                }
                Err(e) => self.diags.push(
                    Diagnostic::error(Problem::BadPhase, e, short_span)
                        .with_help(format!("the open phase is {}", state.phase)),
                ),
            },
        }
    }

    /// A READY or WAIT line: one of them a message (the second of the
    /// same is harmless, READY with WAIT is a contradiction).
    fn readiness_line(&mut self, r: ast::Readiness, raw: &str, no: usize) {
        match self.header.readiness {
            Some((had, _)) if had != r => {
                let lead = raw.chars().count() - raw.trim_start().chars().count();
                self.diags.push(
                    Diagnostic::error(
                        Problem::Syntax,
                        format!("{} and {} in one message: which is it?", had.word(), r.word()),
                        Span::new(no, lead + 1, r.word().len()),
                    )
                    .with_help("READY: do not wait for me; WAIT: do not close early on my account. Keep one"),
                );
            }
            Some(_) => {}
            None => self.header.readiness = Some((r, no)),
        }
    }

    /// A TIMEZONE line: an IANA zone (any case), one a message; a name no
    /// zone has is an error with the close names as help.
    fn zone_line(&mut self, raw: &str, body: &str, no: usize) {
        let lead = raw.chars().count() - raw.trim_start().chars().count();
        let kw = Span::new(no, lead + 1, "TIMEZONE".len());
        let value = body.trim_start()["TIMEZONE".len()..].trim();
        if self.header.timezone.is_some() {
            self.diags.push(Diagnostic::error(
                Problem::DuplicateHeader,
                "a second TIMEZONE line",
                kw,
            ));
            return;
        }
        if value.is_empty() {
            self.diags.push(
                Diagnostic::error(Problem::Syntax, "TIMEZONE needs a zone", kw)
                    .with_help("write an IANA time zone name, e.g. TIMEZONE Europe/Paris"),
            );
            return;
        }
        let at = raw.find(value).map_or(lead, |b| raw[..b].chars().count());
        let span = Span::new(no, at + 1, value.chars().count());
        match crate::zone::parse(value) {
            Ok(tz) => self.header.timezone = Some((tz.name().to_string(), no)),
            Err(close) => {
                let (what, help) = crate::zone::unknown(value, &close);
                self.diags
                    .push(Diagnostic::error(Problem::UnknownZone, what, span).with_help(help));
            }
        }
    }

    /// The value of the POWER line, a major power (with the closest
    /// spelling as help when it is none).
    fn power_value(&mut self, short: &str, short_span: Span) {
        match PowerId::parse(short) {
            Some(p) => {
                self.header.power = Some(p);
                self.power_line = Some(short_span);
            }
            None => {
                let all: Vec<&str> = PowerId::ALL
                    .iter()
                    .flat_map(|p| p.spellings().iter().copied())
                    .collect();
                let close: Vec<&str> = suggest(short, all)
                    .into_iter()
                    .filter_map(PowerId::parse)
                    .map(PowerId::name)
                    .collect();
                let d = Diagnostic::error(Problem::UnknownPower, format!("no major power '{short}'"), short_span);
                self.diags.push(match close.first() {
                    Some(c) => d.with_help(format!("did you mean {c}?")),
                    None => d.with_help("powers: France, Britain, Russia, Austria, Prussia, Spain, Ottoman"),
                });
            }
        }
    }

    /// The power the orders are for: the one asked for (`power`) and the
    /// POWER line must agree; one of them must be there.
    fn which_power(&mut self, power: Option<PowerId>) -> Option<PowerId> {
        let diags = &mut self.diags;
        let power_line = self.power_line;
        match (power, self.header.power) {
            (Some(p), Some(h)) if p != h => {
                diags.push(
                    Diagnostic::error(
                        Problem::WrongPower,
                        format!(
                            "these orders are for {}, but they are checked for {}",
                            h.name(),
                            p.name()
                        ),
                        power_line.unwrap_or(Span::line(1)),
                    )
                    .with_help("no order of this message is applied"),
                );
                None
            }
            (Some(p), _) | (None, Some(p)) => Some(p),
            (None, None) => {
                if !diags.iter().any(|d| d.code == Problem::UnknownPower) {
                    diags.push(
                        Diagnostic::error(
                            Problem::NoPower,
                            "no POWER line: which power are these orders for?",
                            Span::line(1),
                        )
                        .with_help("start the message with a line such as 'POWER France'"),
                    );
                }
                None
            }
        }
    }
}

/// Parse the order lines and resolve their names; lines with an error
/// leave their diagnostics and no order. Each order comes with where its
/// line wrote its arguments.
fn parse_lines(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    lines: &[(usize, &str)],
    diags: &mut Vec<Diagnostic>,
) -> Vec<(OrderLine, Args)> {
    let ctx = parse::Ctx { scenario, state, power };
    let mut parsed = Vec::new();
    for &(no, body) in lines {
        let toks = lexer::lex(body, no);
        if toks.is_empty() {
            continue;
        }
        let span = parse::Cur::new(&toks).line_span;
        let mut p = parse::LineParser::new(&ctx);
        let order = p.order(&toks);
        diags.append(&mut p.errs);
        if let Some(order) = order {
            let text = text::normalise(scenario, &order);
            parsed.push((OrderLine { order, text, span }, p.args));
        }
    }
    parsed
}

/// Render every diagnostic of a check against its source, in order.
pub fn render_all(checked: &Checked, origin: &str, source: &str) -> String {
    let lines = crate::diagnostic::Lines::new(source);
    checked
        .diagnostics
        .iter()
        .map(|d| d.render_in(origin, &lines))
        .collect::<Vec<_>>()
        .join("")
}
