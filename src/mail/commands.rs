//! Player commands by mail: lines a player sends, alone or among orders,
//! that ask the game something instead of ordering anything. They are
//! read from an authenticated message (the PASSWORD line authenticates
//! them, as it does orders), blanked so the order checker's line numbers
//! stay right, and answered in the acknowledgement or by their own mail.
//! None of them is an order: a message of commands alone stores nothing
//! and does not count the power as in.
//!
//! ```text
//! STATUS                      the phase, the deadline in your time zone, who is in, grace, pause
//! STATE                       your state file (attached) and a summary, as your power sees it
//! RESEND [REPORT|OPENING] [phase]   the last (or that phase's) report and/or opening again
//! HISTORY                     every phase with its outcomes as your power may see them
//! SET PASSWORD new-secret     change the password (the PASSWORD line still carries the old one)
//! ORDERS                      what is stored for your power in the open phase
//! HELP                        the orders this phase takes from you, and these commands
//! PRESS TO France, Austria    a message to other players, up to a line ENDPRESS
//! ```
//!
//! Press is relayed by [`super::press`]. What each answer shows comes
//! from the per-power view (`State::view_for`) and the report code
//! (`report::TurnReportView::events_for`); no other filter is written
//! here. This module owns no file of its own: SET PASSWORD writes the
//! power's hash in `game.toml`, RESEND queues through `ops::mailing`.

use super::escape;
use super::ingest::{GameCtx, Run};
use super::outbox::{self, Addr, FileAttachment, OutMail};
use crate::ids::PowerId;
use crate::report::{self, TurnReportView};
use crate::store::{self, history};
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};

/// What `RESEND` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResendWhat {
    Report,
    Opening,
    Both,
}

/// One command line, as understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Status,
    State,
    History,
    Orders,
    Help,
    Resend { what: ResendWhat, phase: Option<String> },
    SetPassword(String),
}

impl Command {
    /// How the command is echoed (never a password).
    pub fn shown(&self) -> String {
        match self {
            Command::Status => "STATUS".into(),
            Command::State => "STATE".into(),
            Command::History => "HISTORY".into(),
            Command::Orders => "ORDERS".into(),
            Command::Help => "HELP".into(),
            Command::Resend { what, phase } => {
                let w = match what {
                    ResendWhat::Report => " REPORT",
                    ResendWhat::Opening => " OPENING",
                    ResendWhat::Both => "",
                };
                format!(
                    "RESEND{w}{}",
                    phase
                        .as_ref()
                        .map(|p| format!(" {}", escape::line(p, 40)))
                        .unwrap_or_default()
                )
            }
            Command::SetPassword(_) => "SET PASSWORD [hidden]".into(),
        }
    }
}

/// Who a press message goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PressTo {
    All,
    Powers(Vec<PowerId>),
}

/// One `PRESS TO … ENDPRESS` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Press {
    pub to: PressTo,
    pub anonymous: bool,
    /// The message as written (each line as sent; escaped when relayed).
    pub body: Vec<String>,
    /// The line of the PRESS line (1-based).
    pub line: usize,
}

/// The command and press lines of a message, and the text left for the
/// order checker (those lines blanked).
#[derive(Clone, Debug, Default)]
pub struct Extracted {
    pub text: String,
    pub commands: Vec<Command>,
    pub press: Vec<Press>,
    /// Lines that looked like a command but were not understood, with
    /// why (told in the acknowledgement).
    pub problems: Vec<String>,
}

impl Extracted {
    /// Whether the message held any command or press (so a message of
    /// nothing else is read, not "empty").
    pub fn any(&self) -> bool {
        !self.commands.is_empty() || !self.press.is_empty() || !self.problems.is_empty()
    }
}

/// Most lines of one press message; the rest are not relayed.
pub const PRESS_MAX_LINES: usize = 100;

/// Read the command and press lines of `text` (after the meta lines were
/// blanked). Quoted lines are skipped and reading stops at END, SIGNOFF
/// or a signature, as for orders; a press block runs to its ENDPRESS
/// whatever it holds.
pub fn extract(text: &str) -> Extracted {
    let mut ex = Extracted::default();
    let mut out: Vec<&str> = Vec::new();
    let mut open: Option<Press> = None;
    let mut done = false;
    for (i, raw) in text.lines().enumerate() {
        if let Some(p) = open.as_mut() {
            if raw.trim().eq_ignore_ascii_case("ENDPRESS") {
                ex.press.push(open.take().expect("open press"));
            } else {
                p.body.push(raw.to_string());
            }
            out.push("");
            continue;
        }
        let t = raw.trim();
        if done || t.starts_with('>') {
            out.push(raw);
            continue;
        }
        if raw == "-- " || t == "--" {
            done = true;
            out.push(raw);
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        let upper: Vec<String> = words.iter().map(|w| w.to_ascii_uppercase()).collect();
        let up: Vec<&str> = upper.iter().map(String::as_str).collect();
        if matches!(up.first(), Some(&"END") | Some(&"SIGNOFF")) && up.len() == 1 {
            done = true;
            out.push(raw);
            continue;
        }
        match read_line(t, &up, i + 1) {
            Line::NotOurs => out.push(raw),
            Line::Command(c) => {
                ex.commands.push(c);
                out.push("");
            }
            Line::Press(p) => {
                open = Some(p);
                out.push("");
            }
            Line::Problem(why) => {
                ex.problems.push(why);
                out.push("");
            }
        }
    }
    if let Some(p) = open {
        ex.problems.push(format!(
            "the PRESS on line {} has no ENDPRESS line: it was not sent (everything after it was read as press, not orders)",
            p.line
        ));
    }
    ex.text = out.join("\n");
    ex
}

enum Line {
    NotOurs,
    Command(Command),
    Press(Press),
    Problem(String),
}

/// One line: a command, the start of a press block, a command written
/// wrong, or not ours (an order, a header, a greeting).
fn read_line(t: &str, up: &[&str], no: usize) -> Line {
    // A comment may follow a command, but not SET PASSWORD (the password
    // keeps its whole text, like a PASSWORD line).
    let bare: Vec<&str> = match up.iter().position(|w| w.starts_with('#')) {
        Some(k) if !matches!(up, ["SET", "PASSWORD", ..]) => up[..k].to_vec(),
        _ => up.to_vec(),
    };
    match bare.as_slice() {
        ["STATUS"] => Line::Command(Command::Status),
        ["STATE"] | ["SEND", "STATE"] => Line::Command(Command::State),
        ["HISTORY"] => Line::Command(Command::History),
        ["ORDERS"] => Line::Command(Command::Orders),
        ["HELP"] => Line::Command(Command::Help),
        ["RESEND", rest @ ..] => {
            let (what, rest) = match rest.first() {
                Some(&"REPORT") => (ResendWhat::Report, &rest[1..]),
                Some(&"OPENING") => (ResendWhat::Opening, &rest[1..]),
                _ => (ResendWhat::Both, rest),
            };
            match rest {
                [] => Line::Command(Command::Resend { what, phase: None }),
                [p] => Line::Command(Command::Resend {
                    what,
                    phase: Some(p.to_ascii_lowercase()),
                }),
                _ => Line::Problem(format!(
                    "line {no}: write RESEND, RESEND REPORT or RESEND OPENING, then a phase id if not the last (RESEND REPORT 1805-fall-france)"
                )),
            }
        }
        ["SET", "PASSWORD", ..] => {
            // The new password is the rest of the line as written.
            let at = t.to_ascii_uppercase().find("PASSWORD").map(|k| k + "PASSWORD".len());
            let new = at.map(|k| t[k..].trim()).unwrap_or("");
            if new.is_empty() {
                Line::Problem(format!("line {no}: SET PASSWORD needs the new password after it"))
            } else if new.chars().count() > 200 || new.chars().any(char::is_control) {
                Line::Problem(format!(
                    "line {no}: a password is at most 200 characters, without control characters; not changed"
                ))
            } else {
                Line::Command(Command::SetPassword(new.to_string()))
            }
        }
        ["PRESS", rest @ ..] => match press_to(rest) {
            Ok((to, anonymous)) => Line::Press(Press {
                to,
                anonymous,
                body: Vec::new(),
                line: no,
            }),
            Err(why) => Line::Problem(format!("line {no}: {why}")),
        },
        _ => Line::NotOurs,
    }
}

/// `TO ALL` or `TO France, Austria`, maybe followed by `ANONYMOUS`.
fn press_to(rest: &[&str]) -> Result<(PressTo, bool), String> {
    let usage = "write PRESS TO ALL or PRESS TO France, Austria (ANONYMOUS at the end where the game allows grey press), the message on the next lines, and a line ENDPRESS; the press was not sent";
    let Some((&"TO", rest)) = rest.split_first() else {
        return Err(usage.into());
    };
    let (rest, anonymous) = match rest.split_last() {
        Some((&"ANONYMOUS", r)) => (r, true),
        _ => (rest, false),
    };
    if rest == ["ALL"] {
        return Ok((PressTo::All, anonymous));
    }
    let joined = rest.join(" ");
    let mut powers = Vec::new();
    for name in joined.split([',', '+']).flat_map(|s| s.split(" AND ")) {
        let name = name.trim();
        if name.is_empty() {
            continue;
        }
        match PowerId::parse(name) {
            Some(p) if !powers.contains(&p) => powers.push(p),
            Some(_) => {}
            None => {
                return Err(format!(
                    "no power '{}' (powers: France, Britain, Russia, Austria, Prussia, Spain, Ottoman); the press was not sent",
                    escape::line(name, 40)
                ));
            }
        }
    }
    if powers.is_empty() {
        return Err(usage.into());
    }
    Ok((PressTo::Powers(powers), anonymous))
}

/// What answering a message's commands produced: text for the
/// acknowledgement, the ids of mails queued, journal lines.
#[derive(Debug, Default)]
pub struct Answered {
    pub blocks: Vec<String>,
    pub replies: Vec<String>,
    pub journal: Vec<String>,
    /// How many powers the message's press reached (`None`: no press).
    pub press_sent: Option<usize>,
}

/// Who asked, and where the answers go.
pub struct Asker<'a> {
    pub power: PowerId,
    /// The sender (answers by mail go there).
    pub to: Addr,
    /// The address on record when the sender is not it (a copy goes
    /// there, as for the acknowledgement).
    pub copy: Option<Addr>,
    /// The message answered (for the mails' In-Reply-To and ids).
    pub hash: &'a str,
    pub in_reply_to: Option<String>,
}

/// Answer every command of a message, in order, then relay its press.
/// Called once the message's orders (if any) are stored, so ORDERS
/// shows them.
pub fn answer(ctx: &GameCtx, who: &Asker<'_>, ex: &Extracted, run: &mut Run) -> Result<Answered> {
    let mut out = Answered::default();
    for p in &ex.problems {
        out.blocks.push(format!("Not understood: {p}"));
    }
    for (n, c) in ex.commands.iter().enumerate() {
        let block = match c {
            Command::Status => {
                let tz = run.player_tz(ctx, who.power)?;
                status(ctx, who.power, tz, run.now)?
            }
            Command::Orders => orders(ctx, who.power)?,
            Command::Help => help(ctx, who.power),
            Command::State => {
                let m = state_mail(ctx, who, n, run.now);
                mail_answer(ctx, m, run, &mut out, "STATE: your state file and a summary")?
            }
            Command::History => {
                let m = history_mail(ctx, who, n, run.now)?;
                mail_answer(ctx, m, run, &mut out, "HISTORY: the list of phases")?
            }
            Command::Resend { what, phase } => resend(ctx, who, *what, phase.as_deref(), run, &mut out)?,
            Command::SetPassword(new) => set_password(ctx, who.power, new, &mut run.cache, &mut out)?,
        };
        out.journal.push(format!("{} asked {}", who.power.id(), c.shown()));
        out.blocks.push(block);
    }
    for (n, p) in ex.press.iter().enumerate() {
        let r = super::press::relay(ctx, who.power, who.hash, n, p, run)?;
        *out.press_sent.get_or_insert(0) += r.reached;
        out.blocks.push(r.block);
        out.replies.extend(r.replies);
        out.journal.extend(r.journal);
    }
    Ok(out)
}

/// Queue a command's own mail (within the day's reply allowance) and
/// say so in the acknowledgement.
fn mail_answer(ctx: &GameCtx, m: OutMail, run: &mut Run, out: &mut Answered, what: &str) -> Result<String> {
    Ok(match super::ingest::send_limited(ctx, m, run, true)? {
        Some(id) => {
            out.replies.push(id);
            format!("{what} follow in a separate mail.")
        }
        None => {
            format!("{what}: NOT sent, the day's allowance of mails to your address is used up; ask again tomorrow.")
        }
    })
}

fn game_from(ctx: &GameCtx) -> Addr {
    Addr::new(
        Some(&format!("Empereur {}", ctx.config.game)),
        ctx.config.mail_address(),
    )
}

fn answer_mail(
    ctx: &GameCtx,
    who: &Asker<'_>,
    kind: &str,
    n: usize,
    subject: String,
    body: String,
    now: DateTime<Utc>,
) -> OutMail {
    OutMail {
        id: outbox::stable_id(&[kind, &ctx.config.game, who.hash, &n.to_string()]),
        from: game_from(ctx),
        to: vec![who.to.clone()],
        cc: who.copy.iter().cloned().collect(),
        subject,
        in_reply_to: who.in_reply_to.clone(),
        body,
        attachments: vec![],
        date: now,
    }
}

/// STATUS: the phase, the deadline in the player's time zone `tz`, who
/// is in (not what they ordered), grace and pause.
pub fn status(ctx: &GameCtx, power: PowerId, tz: chrono_tz::Tz, now: DateTime<Utc>) -> Result<String> {
    use crate::schedule::Due;
    let state = &ctx.state;
    let local = |t: DateTime<Utc>| crate::zone::shown(t, tz);
    let mut l = vec![format!("STATUS of game {}, phase {}:", ctx.config.game, state.phase)];
    if let Some(w) = &state.over {
        l.push(format!("  The game is over: {w}"));
        return Ok(l.join("\n"));
    }
    let schedule = ctx.dir.load_schedule()?;
    let roles = crate::rules::roles(&ctx.scenario, state);
    let subs = store::submission::load_all(&ctx.dir)?;
    let in_at: std::collections::BTreeMap<PowerId, DateTime<Utc>> = subs
        .iter()
        .filter(|(_, s)| s.phase == state.phase && s.counts_in())
        .map(|(p, s)| {
            let t = DateTime::parse_from_rfc3339(&s.received)
                .map(|t| t.with_timezone(&Utc))
                .unwrap_or(DateTime::UNIX_EPOCH);
            (*p, t)
        })
        .collect();
    let clock = ctx.dir.load_clock()?.filter(|c| c.phase == Some(state.phase));
    match &clock {
        Some(c) => {
            let cfg = &ctx.config.deadlines;
            let game_tz = ctx.config.tz();
            let deadline = c.deadline(now, cfg, game_tz, &schedule.absences);
            l.push(format!("  Deadline: {} (your time zone: {tz})", local(deadline)));
            l.push(format!(
                "  Grace: {} hour(s) after the deadline; then the phase resolves and whoever has sent nothing is late",
                cfg.grace_hours
            ));
            let proposals = super::compose::awaited_answers(&ctx.dir, &ctx.config, state.phase)?;
            let awaited = super::compose::awaited_from(&proposals);
            let due = c.due(now, cfg, game_tz, &schedule.absences, &roles.must, &in_at);
            let answers = crate::schedule::hold_for_answers(due.clone(), deadline, now, &awaited);
            let said = schedule.readiness_in(state.phase);
            let held = crate::schedule::with_readiness(answers.clone(), deadline, now, &roles.must, &said);
            let line = match held {
                Due::Waiting { .. } if held != answers => {
                    "everyone is in; a WAIT holds the phase until the deadline".into()
                }
                Due::Early if held != answers => "everyone is in and READY: it resolves at the next run".into(),
                Due::Paused => format!(
                    "paused by the moderator since {}: the deadline moves on by the time paused",
                    c.paused_since.map(local).unwrap_or_default()
                ),
                // Issue 33: what holds the phase open, as this power may
                // read it (another pair's diplomacy is theirs).
                Due::Waiting { .. } if answers != due => {
                    let mut what: Vec<String> = proposals.iter().map(|p| p.awaiting(Some(power))).collect();
                    what.sort();
                    what.dedup();
                    format!(
                        "everyone is in; awaiting {} (until the deadline at the latest)",
                        what.join("; ")
                    )
                }
                Due::Waiting { .. } => "waiting for orders".into(),
                Due::ChangeOfMind { until } => format!("everyone is in; resolves after {}", local(until)),
                Due::Grace { ends } => format!("past the deadline; grace ends {}", local(ends)),
                Due::Early | Due::Late { .. } => "due now: it resolves at the moderator's next run".into(),
            };
            l.push(format!("  Now: {line}"));
        }
        None => l.push("  Deadline: not set yet (the clock starts with the moderator's next run)".into()),
    }
    let name = |p: &PowerId| p.name().to_string();
    let inn: Vec<String> = roles.must.iter().filter(|p| in_at.contains_key(p)).map(name).collect();
    let missing: Vec<String> = roles.must.iter().filter(|p| !in_at.contains_key(p)).map(name).collect();
    let or_none = |v: Vec<String>| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    l.push(format!("  In: {}", or_none(inn)));
    l.push(format!("  Not in yet: {}", or_none(missing)));
    let you = if roles.must.contains(&power) {
        "must send orders"
    } else if roles.may.contains(&power) {
        "may send orders"
    } else {
        "gives no orders"
    };
    l.push(format!("  {} {you} in this phase.", power.name()));
    match schedule_said(ctx)?.get(&power) {
        Some(crate::orders::ast::Readiness::Ready) => {
            l.push("  Your READY is in force: the phase does not wait for you.".into())
        }
        Some(crate::orders::ast::Readiness::Wait) => {
            l.push("  Your WAIT is in force: the phase does not close before its deadline.".into())
        }
        None => {}
    }
    Ok(l.join("\n"))
}

/// READY and WAIT in force in the open phase.
fn schedule_said(ctx: &GameCtx) -> Result<std::collections::BTreeMap<PowerId, crate::orders::ast::Readiness>> {
    Ok(ctx.dir.load_schedule()?.readiness_in(ctx.state.phase))
}

/// ORDERS: the power's stored submission for the open phase, as the
/// engine reads it (the normalised orders).
pub fn orders(ctx: &GameCtx, power: PowerId) -> Result<String> {
    let subs = store::submission::load_all(&ctx.dir)?;
    let phase = ctx.state.phase;
    let Some(s) = subs.get(&power).filter(|s| s.phase == phase) else {
        return Ok(format!(
            "ORDERS: nothing is stored for {} in phase {phase}; you are not counted as in.",
            power.name()
        ));
    };
    let mut l = vec![
        format!("ORDERS stored for {} in phase {phase}:", power.name()),
        format!("  (received {}, receipt", s.received),
        format!(
            "  {})",
            store::submission::receipt(&ctx.dir, power)?.unwrap_or_default()
        ),
    ];
    if s.orders.is_empty() {
        l.push("  NO ORDERS".into());
    }
    for o in &s.orders {
        l.push(format!("  {}", o.text));
    }
    if let Some(e) = &s.entropy {
        l.push(format!("  ENTROPY {e}"));
    }
    Ok(l.join("\n"))
}

/// HELP: the orders the open phase takes from the power, and the
/// commands.
pub fn help(ctx: &GameCtx, power: PowerId) -> String {
    let state = &ctx.state;
    let taken = crate::rules::legality::orders_taken(state, power);
    let mut l = vec![
        format!("HELP for {} in phase {}:", power.name(), state.phase),
        format!("  Orders this phase takes from you: {}.", taken.join(", ")),
        "  Every order, with examples: orders/README.md. Your order template".into(),
        "  is in the phase-opening mail (RESEND OPENING mails it again).".into(),
        "  Commands, with your POWER and PASSWORD lines, alone or among".into(),
        "  orders (none of them is an order):".into(),
        "    STATUS            phase, deadline, who is in".into(),
        "    STATE             your state file and a summary".into(),
        "    ORDERS            what is stored for you this phase".into(),
        "    HISTORY           every phase and what you saw of it".into(),
        "    RESEND [REPORT|OPENING] [phase]   a report or opening again".into(),
        "    SET PASSWORD new  change your password".into(),
        "    HELP              this text".into(),
        "  With your orders, or alone: READY (my orders are final, do not".into(),
        "  wait for me) or WAIT (do not close early on my account);".into(),
        "  TIMEZONE Europe/Paris (any IANA zone): your deadlines in your zone.".into(),
    ];
    if crate::rules::draw::on(&ctx.state) {
        l.push("  DRAW / NODRAW: your secret vote for a draw (a house rule here).".into());
    }
    match super::press::mode(&ctx.config) {
        super::press::Mode::None => l.push("  Press (messages to other players) is off in this game.".into()),
        m => {
            l.push("  Press: PRESS TO France, Austria (or PRESS TO ALL), the message".into());
            l.push("  on the next lines, then a line ENDPRESS.".into());
            if m == super::press::Mode::Grey {
                l.push("  Add ANONYMOUS after the recipients to send it unsigned.".into());
            }
        }
    }
    l.join("\n")
}

/// STATE: the power's view of the state, attached, with a summary.
fn state_mail(ctx: &GameCtx, who: &Asker<'_>, n: usize, now: DateTime<Utc>) -> OutMail {
    let state = &ctx.state;
    let p = who.power;
    let mut body = format!(
        "Game {}, phase {}: the state as {} sees it.\nYour state file is attached (state-{}.toml); `empereur check --state state-{}.toml` checks orders against it.\n\n",
        ctx.config.game,
        state.phase,
        p.name(),
        p.id(),
        p.id()
    );
    for s in report::state_summary(&ctx.scenario, state, p) {
        body.push_str(&format!("{s}\n"));
    }
    let units = report::unit_lines(&ctx.scenario, state, p);
    if !units.is_empty() {
        body.push_str("\nYour units:\n");
        for u in units {
            body.push_str(&format!("  {u}\n"));
        }
    }
    let mut m = answer_mail(
        ctx,
        who,
        "state",
        n,
        format!("Empereur {}: state of {} in {}", ctx.config.game, p.name(), state.phase),
        body,
        now,
    );
    m.attachments.push(FileAttachment::state(state, Some(p)));
    m
}

/// HISTORY: every history entry with the outcomes the power may see.
fn history_mail(ctx: &GameCtx, who: &Asker<'_>, n: usize, now: DateTime<Utc>) -> Result<OutMail> {
    let dir = &ctx.dir;
    let mut body = format!(
        "Game {}: every phase so far, with what {} saw of it. RESEND REPORT <phase> mails a phase's report again.\n\n",
        ctx.config.game,
        who.power.name()
    );
    let names = history::list(dir)?;
    if names.is_empty() {
        body.push_str("Nothing has been resolved yet.\n");
    }
    for name in names.values() {
        let (rec, _) = history::read_entry(dir, name)?;
        let then = match rec.kind.as_str() {
            "resolve" => format!("{}: resolved", rec.phase),
            "undo" => format!("{}: rolled back by the moderator", rec.phase),
            k => format!("{}: {k}", rec.phase),
        };
        let next = rec.next_phase.map(|p| format!(", opened {p}")).unwrap_or_default();
        body.push_str(&format!("{:>4}  {then}{next}\n", rec.number));
        let p = history::entry_dir(dir, name).join("outcomes.toml");
        if rec.kind == "resolve" && p.is_file() {
            let file: history::OutcomesFile =
                toml::from_str(&store::read_text(&p)?).with_context(|| format!("{} is damaged", p.display()))?;
            for e in TurnReportView::events_for(&file.outcomes, Some(who.power)) {
                body.push_str(&format!("        {}\n", e.summary));
            }
        }
    }
    body.push_str(&format!("\nThe open phase is {}.\n", ctx.state.phase));
    Ok(answer_mail(
        ctx,
        who,
        "history",
        n,
        format!("Empereur {}: history for {}", ctx.config.game, who.power.name()),
        body,
        now,
    ))
}

/// RESEND: the moderator's resend, for the asking power only, within the
/// day's reply allowance.
fn resend(
    ctx: &GameCtx,
    who: &Asker<'_>,
    what: ResendWhat,
    phase: Option<&str>,
    run: &mut Run,
    out: &mut Answered,
) -> Result<String> {
    if !run.allow_reply(ctx, &who.to.email)? {
        return Ok(
            "RESEND: NOT sent, the day's allowance of mails to your address is used up; ask again tomorrow.".into(),
        );
    }
    let item = match what {
        ResendWhat::Report => Some(super::mailed::Item::Report),
        ResendWhat::Opening => Some(super::mailed::Item::Opening),
        ResendWhat::Both => None,
    };
    match crate::ops::mailing::resend_for_player(&ctx.dir, who.power, phase, item, run.now) {
        Ok(ids) if ids.is_empty() => Ok("RESEND: there is nothing of that kind to send.".into()),
        Ok(ids) => {
            let n = ids.len();
            out.replies.extend(ids);
            Ok(format!(
                "RESEND{}: {n} mail(s) queued to the address on record.",
                phase.map(|p| format!(" {}", escape::line(p, 40))).unwrap_or_default()
            ))
        }
        Err(e) => Ok(format!("RESEND: not sent: {}", escape::line(&format!("{e:#}"), 200))),
    }
}

/// SET PASSWORD: a new hash for the power in game.toml. The message was
/// authenticated with the old password; when its sender is not on
/// record, the acknowledgement saying so goes to the address on record
/// too (the caller's copy rule).
fn set_password(
    ctx: &GameCtx,
    power: PowerId,
    new: &str,
    cache: &mut super::auth::PasswordCache,
    out: &mut Answered,
) -> Result<String> {
    let hash = store::password::hash(new)?;
    // Read afresh under the game lock: another command of this run may
    // have written game.toml since the context was loaded.
    let mut config = ctx.dir.load_config()?;
    let Some(p) = config.players.iter_mut().find(|p| p.power == power) else {
        return Ok(format!(
            "SET PASSWORD: {} has no player; nothing changed.",
            power.name()
        ));
    };
    let old = std::mem::replace(&mut p.password_hash, hash.clone());
    store::atomic_write(&ctx.dir.config(), config.to_toml().as_bytes()).context("writing game.toml")?;
    // The rest of this run checks passwords against the context loaded
    // at its start: from now on it must see the new hash, not the old.
    cache.replace(&old, &hash);
    if let Some(loaded) = ctx.config.player(power)
        && loaded.password_hash != old
    {
        cache.replace(&loaded.password_hash, &hash);
    }
    out.journal.push(format!("{} changed its password by mail", power.id()));
    Ok(format!(
        "SET PASSWORD: the password of {} is changed. Use the new one from your next mail on.",
        power.name()
    ))
}
