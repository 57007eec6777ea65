//! Press: diplomatic messages between players, relayed by the game.
//!
//! ```text
//! PRESS TO Austria, Prussia
//! Shall we talk about Bavaria before the spring?
//! ENDPRESS
//! PRESS TO ALL ANONYMOUS          (grey press only)
//! …
//! ENDPRESS
//! ```
//!
//! A block read from an authenticated message ([`super::commands`]) is
//! relayed at once to the players of the powers named (never to NPCs,
//! never back to the sender), and to the moderator unless `[press]
//! moderator_copy = false`, each as its own mail from the game's address
//! naming the sender, or not where grey press allows `ANONYMOUS` (the
//! moderator's copy always names the sender). Every line is escaped and
//! the length capped like anything else echoed; each recipient's daily
//! reply allowance counts the relays too.
//!
//! Press is archived in `press/` of the game directory, one TOML file
//! per message (this module owns that directory). It has no effect on
//! the rules or the dice: nothing here touches the state or the phase.

use super::commands::{PRESS_MAX_LINES, Press, PressTo};
use super::escape;
use super::ingest::{GameCtx, Run};
use super::outbox::{self, Addr, OutMail};
use crate::ids::PowerId;
pub use crate::store::config::PressMode as Mode;
use crate::store::{self, GameConfig};
use anyhow::Result;
use serde::Serialize;

/// The game's press mode.
pub fn mode(config: &GameConfig) -> Mode {
    config.press.mode
}

/// Longest press line relayed (characters; longer lines are cut).
pub const PRESS_MAX_LINE: usize = 300;

/// One press message as archived in `press/`.
#[derive(Serialize)]
struct Archived<'a> {
    phase: String,
    from: &'a str,
    anonymous: bool,
    to: Vec<&'a str>,
    received: String,
    /// The message as relayed (escaped).
    text: &'a str,
}

/// What relaying one press block did.
#[derive(Debug, Default)]
pub struct Relayed {
    /// The line for the acknowledgement.
    pub block: String,
    pub replies: Vec<String>,
    pub journal: Option<String>,
    /// How many powers it was mailed to.
    pub reached: usize,
}

/// Relay press block number `n` of message `hash`, sent by `from`.
pub fn relay(ctx: &GameCtx, from: PowerId, hash: &str, n: usize, p: &Press, run: &mut Run) -> Result<Relayed> {
    let config = &ctx.config;
    let mut out = Relayed::default();
    let refuse = |why: String| Relayed {
        block: format!("PRESS (line {}): NOT sent: {why}", p.line),
        ..Relayed::default()
    };
    match (mode(config), p.anonymous) {
        (Mode::None, _) => return Ok(refuse("this game has no press.".into())),
        (Mode::White, true) => {
            return Ok(refuse(
                "this game's press is white (always signed): ANONYMOUS is not allowed.".into(),
            ));
        }
        _ => {}
    }
    let text = body(&p.body);
    if text.trim().is_empty() {
        return Ok(refuse("the message is empty.".into()));
    }
    let (to, skipped) = recipients(config, from, &p.to);
    if to.is_empty() {
        return Ok(refuse(format!(
            "no player to send it to{}.",
            if skipped.is_empty() {
                String::new()
            } else {
                format!(": {}", skipped.join(", "))
            }
        )));
    }
    let phase = ctx.state.phase.to_string();
    let names: Vec<&str> = to.iter().map(|(q, _)| q.name()).collect();
    let listed = match &p.to {
        PressTo::All => "all players".to_string(),
        PressTo::Powers(_) => names.join(", "),
    };
    let signed = if p.anonymous {
        "an anonymous power".to_string()
    } else {
        from.name().to_string()
    };
    let game = &config.game;
    let from_addr = Addr::new(Some(&format!("Empereur {game}")), config.mail_address());
    let answer = if p.anonymous {
        "The sender chose to stay anonymous (grey press)."
    } else {
        "To answer, send PRESS TO <power> … ENDPRESS with your POWER and PASSWORD lines."
    };
    let now = run.now;
    let mail_to = |q: &str, addr: Addr, head: String| OutMail {
        id: outbox::stable_id(&["press", game, hash, &n.to_string(), q]),
        from: from_addr.clone(),
        to: vec![addr],
        cc: vec![],
        subject: format!("Empereur {game}: press from {signed}"),
        in_reply_to: None,
        body: format!(
            "{head}\n\n{text}\n\n--\nPress relayed by Empereur for game {game}; it has no effect on the game.\n{answer}\n"
        ),
        attachments: vec![],
        date: now,
    };
    let mut reached = Vec::new();
    let mut over = Vec::new();
    for (q, addr) in to.iter().cloned() {
        let head = format!("Press in game {game}, phase {phase}, from {signed} to {listed}:");
        match super::ingest::send_limited(ctx, mail_to(q.id(), addr, head), run, true)? {
            Some(id) => {
                out.replies.push(id);
                reached.push(q.name());
            }
            None => over.push(q.name()),
        }
    }
    if config.press.moderator_copy {
        let head = format!(
            "Moderator's copy: press in game {game}, phase {phase}, from {}{} to {listed}:",
            from.name(),
            if p.anonymous {
                " (anonymous to its recipients)"
            } else {
                ""
            }
        );
        let m = mail_to(
            "moderator",
            Addr::new(Some(&config.moderator.name), &config.moderator.email),
            head,
        );
        out.replies.extend(super::ingest::send_limited(ctx, m, run, true)?);
    }
    // Press to every player is public (the site's notion): observers get
    // it as the players do, signed or not as they do.
    let named: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let others = config
        .players
        .iter()
        .map(|x| x.power)
        .filter(|q| *q != from)
        .map(|q| q.name());
    if crate::site::privacy::press_is_public(others, &named) {
        for o in &config.observers {
            let head = format!("Public press in game {game}, phase {phase}, from {signed} to all players:");
            let key = super::compose::observer_key(o);
            let m = mail_to(&key, Addr::new(Some(&o.name), &o.email), head);
            out.replies.extend(super::ingest::send_limited(ctx, m, run, true)?);
        }
    }
    // Named by time first, so `ls press/` reads in order; the message's
    // hash and the press line's number make the name unique.
    let key = format!("{}-{n}", &hash[..12.min(hash.len())]);
    archive(ctx, from, p, &names, &text, &key, run)?;
    out.block = sent_line(p, &reached, &over, &skipped);
    out.reached = reached.len();
    out.journal = Some(format!(
        "press from {}{} to {} relayed ({} line(s))",
        from.id(),
        if p.anonymous { " (anonymous)" } else { "" },
        names.join(", "),
        text.lines().count()
    ));
    Ok(out)
}

/// The players the press reaches, and the named powers it does not
/// (without a player, or the sender): those are told about, not mailed.
fn recipients(config: &GameConfig, from: PowerId, to: &PressTo) -> (Vec<(PowerId, Addr)>, Vec<String>) {
    let named: Vec<PowerId> = match to {
        PressTo::All => config.players.iter().map(|x| x.power).filter(|q| *q != from).collect(),
        PressTo::Powers(v) => v.clone(),
    };
    let mut reach = Vec::new();
    let mut skipped = Vec::new();
    for q in named {
        match config.player(q) {
            Some(pl) if q != from => reach.push((q, Addr::new(Some(&pl.name), &pl.email))),
            Some(_) => skipped.push(format!("{} (yourself)", q.name())),
            None => skipped.push(format!("{} (no player)", q.name())),
        }
    }
    (reach, skipped)
}

/// The acknowledgement's line for a relayed block: who got it, who was
/// over their day's allowance, who was skipped.
fn sent_line(p: &Press, reached: &[&str], over: &[&str], skipped: &[String]) -> String {
    let mut block = format!(
        "PRESS (line {}): sent to {}{}.",
        p.line,
        if reached.is_empty() {
            "nobody".to_string()
        } else {
            reached.join(", ")
        },
        if p.anonymous { ", unsigned" } else { "" }
    );
    if !over.is_empty() {
        block.push_str(&format!(
            " Not sent to {}: their day's allowance of mail from the game is used up.",
            over.join(", ")
        ));
    }
    if !skipped.is_empty() {
        block.push_str(&format!(" Not sent to {}.", skipped.join(", ")));
    }
    block
}

/// The message as relayed: blank lines around it dropped, each line
/// escaped and cut, at most [`PRESS_MAX_LINES`] lines.
fn body(lines: &[String]) -> String {
    let start = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(start, |e| e + 1);
    let kept = &lines[start..end];
    let mut out: Vec<String> = kept
        .iter()
        .take(PRESS_MAX_LINES)
        .map(|l| escape::line(l.trim_end(), PRESS_MAX_LINE))
        .collect();
    if kept.len() > PRESS_MAX_LINES {
        out.push(format!("[{} more line(s) not relayed]", kept.len() - PRESS_MAX_LINES));
    }
    out.join("\n")
}

/// Keep a relayed press message (`to` its recipients, `text` as sent) in
/// `press/`, under a name ending in `key`.
fn archive(ctx: &GameCtx, from: PowerId, p: &Press, to: &[&str], text: &str, key: &str, run: &Run) -> Result<()> {
    let phase = ctx.state.phase.to_string();
    let a = Archived {
        phase: phase.clone(),
        from: from.id(),
        anonymous: p.anonymous,
        to: to.to_vec(),
        received: run.now.to_rfc3339(),
        text,
    };
    let name = format!("{}-{phase}-{}-{key}.toml", run.now.format("%Y%m%dT%H%M%SZ"), from.id());
    let path = ctx.dir.root.join("press").join(name);
    store::atomic_write(&path, toml::to_string(&a)?.as_bytes())
}
