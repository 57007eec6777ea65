//! The moderator's commands around the clock: `status`, `pause`,
//! `resume`, `extend`. Each change is journalled and announced.
#![allow(clippy::disallowed_methods)] // adapter

use super::{Done, clock};
use crate::ids::PowerId;
use crate::schedule::{Due, PhaseClock};
use crate::store::{GameConfig, GameDir, submission};
use anyhow::Result;
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct GameOnly {
    /// The game directory.
    pub game: PathBuf,
}

#[derive(Debug, Clone)]
pub struct ExtendArgs {
    /// The game directory.
    pub game: PathBuf,
    /// Hours to add to the open phase's deadline.
    pub hours: u32,
    /// Why (told to the players).
    pub reason: String,
}

/// The open phase's clock, opened now if the phase has none yet (a game
/// created before deadlines were configured, or the first phase).
pub fn ensure_clock(dir: &GameDir, config: &GameConfig, now: DateTime<Utc>) -> Result<PhaseClock> {
    ensure_clock_of(dir, config, dir.load_state()?.phase, now)
}

/// As [`ensure_clock`] for a caller that has the state (the open phase).
pub fn ensure_clock_of(
    dir: &GameDir,
    config: &GameConfig,
    phase: crate::ids::PhaseId,
    now: DateTime<Utc>,
) -> Result<PhaseClock> {
    if let Some(c) = dir.load_clock()?
        && c.phase == Some(phase)
    {
        return Ok(c);
    }
    let mut c = PhaseClock::open(now, phase.step, &config.deadlines, config.tz());
    c.phase = Some(phase);
    dir.save_clock(&c)?;
    Ok(c)
}

/// After a command that opened a new phase outside `run` (a hand
/// `resolve`, `autoplay`, `undo`): start its clock now, so `status` and
/// the phase's opening mail show its deadline at once.
pub fn start_clock_now(dir: &GameDir) -> Result<()> {
    let _lock = dir.lock()?;
    let config = dir.load_config()?;
    ensure_clock(dir, &config, clock::now()?)?;
    Ok(())
}

/// Last submission time of each power that has orders in.
pub fn submitted(dir: &GameDir) -> Result<BTreeMap<PowerId, DateTime<Utc>>> {
    let subs = submission::load_all(dir)?;
    Ok(subs
        .into_iter()
        .filter(|(_, s)| s.counts_in())
        .map(|(p, s)| {
            let t = DateTime::parse_from_rfc3339(&s.received)
                .map(|t| t.with_timezone(&Utc))
                .unwrap_or(DateTime::UNIX_EPOCH);
            (p, t)
        })
        .collect())
}

/// `empereur status`
/// What `empereur status` shows of one game: its phase, deadline, who is
/// in and who is late, what is queued. Times are as players read them
/// (the game's time zone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameStatus {
    pub game: String,
    pub phase: crate::ids::PhaseId,
    pub over: Option<String>,
    /// `None`: no clock yet (it starts at the next `run` or `mail`).
    pub deadline: Option<String>,
    /// Where the phase stands (with a clock only).
    pub standing: Option<String>,
    /// The powers that must order: (power, when their orders came in,
    /// times late so far).
    pub powers: Vec<(PowerId, Option<String>, u32)>,
    pub queued: usize,
    /// Players' addresses the mail servers reported dead (RFC 3464), as
    /// lines: address, power, status, since when.
    pub dead: Vec<String>,
}

impl std::fmt::Display for GameStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "game {}: phase {}", self.game, self.phase)?;
        if let Some(w) = &self.over {
            writeln!(f, "the game is over: {w}")?;
        }
        match (&self.deadline, &self.standing) {
            (Some(d), standing) => {
                writeln!(f, "deadline: {d}")?;
                if let Some(line) = standing {
                    writeln!(f, "status: {line}")?;
                }
            }
            (None, _) => writeln!(f, "deadline: none yet (the clock starts at the next `run` or `mail`)")?,
        }
        for (p, came, late) in &self.powers {
            let mark = match came {
                Some(t) => format!("in ({t})"),
                None => "missing".to_string(),
            };
            let late = if *late > 0 {
                format!(", late {late} time(s) so far")
            } else {
                String::new()
            };
            writeln!(f, "  {:<8} {mark}{late}", p.id())?;
        }
        for d in &self.dead {
            writeln!(f, "dead address: {d}")?;
        }
        writeln!(f, "outbox: {} message(s) queued to send", self.queued)
    }
}

impl super::Summary for GameStatus {
    fn done(&self) -> Done {
        Done::Yes
    }
}

/// `empereur status` of one game.
pub fn status(a: &GameOnly) -> Result<GameStatus> {
    let dir = GameDir::new(&a.game);
    let config = dir.load_config()?;
    let scenario = dir.load_scenario(&config)?;
    let state = dir.load_state()?;
    let now = clock::now()?;
    let schedule = dir.load_schedule()?;
    // A clock left from an earlier phase says nothing about this one.
    let clock = dir.load_clock()?.filter(|c| c.phase == Some(state.phase));
    let tz = config.tz();
    let roles = crate::rules::roles(&scenario, &state);
    let subs = submitted(&dir)?;
    let local = |t: DateTime<Utc>| t.with_timezone(&tz).format("%a %Y-%m-%d %H:%M %Z").to_string();
    let (deadline, standing) = match &clock {
        Some(c) => {
            let deadline = c.deadline(now, &config.deadlines, tz, &schedule.absences);
            let due = c.due(now, &config.deadlines, tz, &schedule.absences, &roles.must, &subs);
            let proposals = crate::mail::compose::awaited_answers(&dir, &config, state.phase)?;
            let awaited = crate::mail::compose::awaited_from(&proposals);
            let answers = crate::schedule::hold_for_answers(due.clone(), deadline, now, &awaited);
            let said = schedule.readiness_in(state.phase);
            let held = crate::schedule::with_readiness(answers.clone(), deadline, now, &roles.must, &said);
            let waits: Vec<&str> = roles
                .must
                .iter()
                .filter(|p| said.get(p) == Some(&crate::orders::ast::Readiness::Wait))
                .map(|p| p.name())
                .collect();
            let line = match held {
                Due::Paused => "paused".to_string(),
                Due::Waiting { .. } if answers != due => format!(
                    "everyone is in; awaiting {} (until the deadline at the latest)",
                    proposals
                        .iter()
                        .map(|p| p.awaiting(None))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
                Due::Waiting { .. } if held != answers => {
                    format!(
                        "everyone is in; WAIT from {}: resolves at the deadline",
                        waits.join(", ")
                    )
                }
                Due::Early if held != answers => "everyone is in and READY; due now".to_string(),
                Due::Waiting { .. } => "waiting for orders".to_string(),
                Due::ChangeOfMind { until } => format!("everyone is in; resolves after {}", local(until)),
                Due::Grace { ends } => format!("past the deadline; grace ends {}", local(ends)),
                Due::Early => "everyone is in; due now".to_string(),
                Due::Late { missing } => format!(
                    "due now; late: {}",
                    missing.iter().map(|p| p.id()).collect::<Vec<_>>().join(", ")
                ),
            };
            (Some(local(deadline)), Some(line))
        }
        None => (None, None),
    };
    let powers = roles
        .must
        .iter()
        .map(|p| {
            let late = schedule.lateness.get(p).copied().unwrap_or(0);
            (*p, subs.get(p).map(|t| local(*t)), late)
        })
        .collect();
    Ok(GameStatus {
        game: state.game.clone(),
        phase: state.phase,
        over: state.over.clone(),
        deadline,
        standing,
        powers,
        queued: crate::mail::outbox::queued(&dir)?.len(),
        dead: crate::mail::dsn::still_dead(&dir, &config)?
            .into_iter()
            .map(|d| {
                let since =
                    DateTime::parse_from_rfc3339(&d.first).map_or(d.first.clone(), |t| local(t.with_timezone(&Utc)));
                format!("{} ({}): {}, since {since}", d.address, d.power.id(), d.status)
            })
            .collect(),
    })
}

/// What a change to the clock did: `pause`, `resume`, `extend`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Clocked {
    Paused,
    /// `pause` of a paused game (a "no").
    AlreadyPaused,
    /// The deadline, as the game's time zone shows it.
    Resumed {
        deadline: String,
    },
    /// `resume` of a game that is not paused (a "no").
    NotPaused,
    Extended {
        hours: u32,
        deadline: String,
    },
}

impl std::fmt::Display for Clocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Clocked::Paused => writeln!(f, "paused; `empereur resume` restarts the clock"),
            Clocked::AlreadyPaused => writeln!(f, "the game is already paused"),
            Clocked::Resumed { deadline } => writeln!(f, "resumed; deadline {deadline}"),
            Clocked::NotPaused => writeln!(f, "the game is not paused"),
            Clocked::Extended { hours, deadline } => writeln!(f, "deadline extended by {hours} h to {deadline}"),
        }
    }
}

impl super::Summary for Clocked {
    fn done(&self) -> Done {
        match self {
            Clocked::AlreadyPaused | Clocked::NotPaused => Done::No,
            Clocked::Paused | Clocked::Resumed { .. } | Clocked::Extended { .. } => Done::Yes,
        }
    }
}

/// `empereur pause`
pub fn pause(a: &GameOnly) -> Result<Clocked> {
    let dir = GameDir::new(&a.game);
    let _lock = dir.lock()?;
    let config = dir.load_config()?;
    let now = clock::now()?;
    let mut c = ensure_clock(&dir, &config, now)?;
    if c.paused_since.is_some() {
        return Ok(Clocked::AlreadyPaused);
    }
    c.paused_since = Some(now);
    dir.save_clock(&c)?;
    let mut s = dir.load_schedule()?;
    s.paused = true;
    dir.save_schedule(&s)?;
    dir.journal_line(&clock::stamp(now), "moderator paused the game")?;
    announce(
        &dir,
        "the game is paused",
        "The moderator has paused the game: the clock of the open phase stops until it resumes, and the deadline moves by the time paused.",
        now,
    )?;
    Ok(Clocked::Paused)
}

/// `empereur resume`
pub fn resume(a: &GameOnly) -> Result<Clocked> {
    let dir = GameDir::new(&a.game);
    let _lock = dir.lock()?;
    let config = dir.load_config()?;
    let now = clock::now()?;
    let mut c = ensure_clock(&dir, &config, now)?;
    let Some(since) = c.paused_since.take() else {
        return Ok(Clocked::NotPaused);
    };
    c.paused_seconds += (now - since).num_seconds().max(0);
    dir.save_clock(&c)?;
    let mut s = dir.load_schedule()?;
    s.paused = false;
    dir.save_schedule(&s)?;
    let deadline = c.deadline(now, &config.deadlines, config.tz(), &s.absences);
    dir.journal_line(
        &clock::stamp(now),
        &format!("moderator resumed the game; deadline {}", clock::stamp(deadline)),
    )?;
    announce_in_zones(
        &dir,
        "the game resumes",
        |tz| {
            format!(
                "The moderator has resumed the game. The deadline is now {}.",
                crate::zone::shown(deadline, tz)
            )
        },
        now,
    )?;
    Ok(Clocked::Resumed {
        deadline: crate::zone::shown(deadline, config.tz()),
    })
}

/// `empereur extend --hours N`
pub fn extend(a: &ExtendArgs) -> Result<Clocked> {
    let dir = GameDir::new(&a.game);
    let _lock = dir.lock()?;
    let config = dir.load_config()?;
    let now = clock::now()?;
    let mut c = ensure_clock(&dir, &config, now)?;
    c.extended_hours += a.hours;
    dir.save_clock(&c)?;
    let s = dir.load_schedule()?;
    let deadline = c.deadline(now, &config.deadlines, config.tz(), &s.absences);
    dir.journal_line(
        &clock::stamp(now),
        &format!(
            "moderator extended the deadline by {} h to {} ({})",
            a.hours,
            clock::stamp(deadline),
            a.reason
        ),
    )?;
    announce_in_zones(
        &dir,
        "the deadline is extended",
        |tz| {
            format!(
                "The moderator has extended the deadline by {} h to {}. Reason: {}",
                a.hours,
                crate::zone::shown(deadline, tz),
                a.reason
            )
        },
        now,
    )?;
    Ok(Clocked::Extended {
        hours: a.hours,
        deadline: crate::zone::shown(deadline, config.tz()),
    })
}

#[derive(Debug, Clone)]
pub struct ReplacePlayerArgs {
    /// The game directory.
    pub game: PathBuf,
    /// The power whose player changes.
    pub power: String,
    /// A file with the new player's `[[player]]` entry (power, name, email, password); a whole players file does too.
    pub players: PathBuf,
}

/// `empereur replace-player --power P --players FILE`: hand a power to a
/// new player (name, address, password). An NPC power becomes a Player
/// Country only through the rules (3.3), so the power must have a player.
/// What `empereur replace-player` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replaced {
    /// The power's new player.
    Done {
        power: PowerId,
        name: String,
        email: String,
    },
    /// An address that cannot be mailed (a "no", said on standard error).
    Refused(String),
}

impl std::fmt::Display for Replaced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Replaced::Done { power, name, email } => writeln!(f, "{power} is now played by {name} <{email}>"),
            Replaced::Refused(_) => Ok(()),
        }
    }
}

impl super::Summary for Replaced {
    fn done(&self) -> Done {
        match self {
            Replaced::Done { .. } => Done::Yes,
            Replaced::Refused(_) => Done::No,
        }
    }

    fn stderr(&self) -> String {
        match self {
            Replaced::Done { .. } => String::new(),
            Replaced::Refused(why) => format!("error: {why}\n"),
        }
    }
}

pub fn replace_player(a: &ReplacePlayerArgs) -> Result<Replaced> {
    let power: PowerId = a.power.parse().map_err(anyhow::Error::msg)?;
    let dir = GameDir::new(&a.game);
    let _lock = dir.lock()?;
    let mut config = dir.load_config()?;
    let text = crate::store::read_text(&a.players)?;
    let origin = a.players.display().to_string();
    let parsed = match crate::store::players::parse_entries(&origin, &text) {
        Ok(p) => p,
        // An address that cannot be mailed is a "no" (exit 1).
        Err(refused) if crate::store::players::has_unmailable(&text) => {
            return Ok(Replaced::Refused(refused.to_string()));
        }
        Err(e) => anyhow::bail!(e),
    };
    let Some(new) = parsed.into_iter().find(|p| p.power == power) else {
        anyhow::bail!("{origin}: no [[player]] entry for {power}");
    };
    let Some(slot) = config.players.iter().position(|p| p.power == power) else {
        anyhow::bail!("{power} has no player in this game (it is an NPC)");
    };
    if config
        .players
        .iter()
        .any(|p| p.power != power && p.email.eq_ignore_ascii_case(&new.email))
    {
        anyhow::bail!("{origin}: address '{}' already belongs to another player", new.email);
    }
    let old = config.players[slot].clone();
    let hash = crate::store::password::Hasher::new().hash(&new.password)?;
    config.players[slot] = new.into_entry(hash);
    crate::store::atomic_write(&dir.config(), config.to_toml().as_bytes())?;
    // A SECOND address was the old player's deputy, not the new one's:
    // mail from it must not count as the new player's own.
    let mut schedule = dir.load_schedule()?;
    let second = schedule.seconds.remove(&power);
    if second.is_some() {
        dir.save_schedule(&schedule)?;
    }
    let now = clock::now()?;
    dir.journal_line(
        &clock::stamp(now),
        &format!(
            "moderator replaced {power}'s player {} <{}> by {} <{}>{}",
            old.name,
            old.email,
            config.players[slot].name,
            config.players[slot].email,
            second
                .map(|s| format!("; the old player's SECOND {s} is dropped"))
                .unwrap_or_default()
        ),
    )?;
    hand_over(&dir, &config, power, &old, now)?;
    // The new player has the hand-over mail of their own.
    announce_except(
        &dir,
        &format!("{} has a new player", power.name()),
        &format!(
            "{} is now played by {}. Welcome!",
            power.name(),
            config.players[slot].name
        ),
        Some(power),
        now,
    )?;
    Ok(Replaced::Done {
        power,
        name: config.players[slot].name.clone(),
        email: config.players[slot].email.clone(),
    })
}

/// The mails of a hand-over: the new player gets the power's state file
/// (its own view), an order template and the deadline of the open phase;
/// the old player is told that the power has passed on.
fn hand_over(
    dir: &GameDir,
    config: &GameConfig,
    power: PowerId,
    old: &crate::store::config::PlayerEntry,
    now: DateTime<Utc>,
) -> Result<()> {
    use crate::mail::outbox::{self, Addr, FileAttachment, OutMail};
    let state = dir.load_state()?;
    let Some(new) = config.players.iter().find(|p| p.power == power) else {
        return Ok(());
    };
    let from = Addr::new(Some(&format!("Empereur {}", config.game)), config.mail_address());
    let stamp = clock::stamp(now);
    let deadline = super::mailing::open_deadline(dir, config, now)?;
    let scenario = dir.load_scenario(config)?;
    let units = crate::report::unit_lines(&scenario, &state, power);
    let welcome = format!(
        "Welcome to game {}: you now play {} (until now played by {}).",
        config.game,
        power.name(),
        old.name
    );
    let mut body = format!(
        "{}\n\nThe open phase is {}.\n",
        textwrap::fill(&welcome, 72),
        state.phase
    );
    match &deadline {
        Some(d) => body.push_str(&format!(
            "Deadline: {}\n",
            crate::zone::shown(*d, config.player_tz(power))
        )),
        None => body.push_str("Its deadline is set when the phase's clock starts; you will be told.\n"),
    }
    if !units.is_empty() {
        body.push_str("\nYour units:\n");
        for u in &units {
            body.push_str(&format!("  {u}\n"));
        }
    }
    body.push_str(&format!(
        "\nYour state file is attached: `empereur check --state state-{}.toml` checks orders against it offline.\n\nOrder template (fill in your password, send back):\n\n{}\n--\nEmpereur, for game {}.\n",
        power.id(),
        crate::mail::compose::order_template(config, &*dir.load_scenario(config)?, &state, power),
        config.game
    ));
    outbox::queue(
        dir,
        &OutMail {
            id: outbox::stable_id(&["hand-over", &config.game, power.id(), &new.email, &stamp]),
            from: from.clone(),
            to: vec![Addr::new(Some(&new.name), &new.email)],
            cc: vec![],
            subject: format!("Empereur {}: you now play {}", config.game, power.name()),
            in_reply_to: None,
            body,
            attachments: vec![FileAttachment::state(&state, Some(power))],
            date: now,
        },
    )?;
    if !old.email.eq_ignore_ascii_case(&new.email) {
        outbox::queue(
            dir,
            &OutMail {
                id: outbox::stable_id(&["hand-over-old", &config.game, power.id(), &old.email, &stamp]),
                from,
                to: vec![Addr::new(Some(&old.name), &old.email)],
                cc: vec![],
                subject: format!("Empereur {}: {} has a new player", config.game, power.name()),
                in_reply_to: None,
                body: format!(
                    "{}\n\n--\nEmpereur, for game {}.\n",
                    textwrap::fill(
                        &format!(
                            "The moderator has handed {} to {}. You no longer play it in game {}: orders from your address are no longer accepted for it, and the game's mail stops coming to you. Thank you for playing.",
                            power.name(),
                            new.name,
                            config.game
                        ),
                        72
                    ),
                    config.game
                ),
                attachments: vec![],
                date: now,
            },
        )?;
    }
    Ok(())
}

/// Tell every player and the moderator about a moderator action (queued
/// in the outbox; the next `run` or `send` delivers it). The id is stable
/// per action and time, so repeating the command's mail step is harmless.
pub fn announce(dir: &GameDir, subject: &str, body: &str, now: DateTime<Utc>) -> Result<()> {
    announce_except(dir, subject, body, None, now)
}

/// [`announce`], to every player but the one of `except` (a player just
/// seated is told in a welcome of their own).
pub fn announce_except(
    dir: &GameDir,
    subject: &str,
    body: &str,
    except: Option<PowerId>,
    now: DateTime<Utc>,
) -> Result<()> {
    use crate::mail::{compose, outbox};
    let config = dir.load_config()?;
    let m = compose::game_mail(
        &config,
        outbox::stable_id(&["announce", &config.game, subject, &clock::stamp(now)]),
        compose::everyone(&config, except),
        format!("Empereur {}: {subject}", config.game),
        format!(
            "{body}\n\n--\nEmpereur, for game {}. The moderator's actions are recorded in the game's journal and history.\n",
            config.game
        ),
        now,
    );
    outbox::queue(dir, &m)?;
    Ok(())
}

/// [`announce`] of a message that names a time (`body` writes it in the
/// zone it is given): each player reads it in their own zone, the
/// moderator in the game's, one mail each.
pub fn announce_in_zones(
    dir: &GameDir,
    subject: &str,
    body: impl Fn(chrono_tz::Tz) -> String,
    now: DateTime<Utc>,
) -> Result<()> {
    use crate::mail::{compose, outbox};
    let config = dir.load_config()?;
    for (power, addr) in compose::table(&config) {
        let (who, tz) = match power {
            Some(p) => (p.id(), config.player_tz(p)),
            None => ("moderator", config.tz()),
        };
        let m = compose::game_mail(
            &config,
            outbox::stable_id(&["announce", &config.game, subject, &clock::stamp(now), who]),
            vec![addr],
            format!("Empereur {}: {subject}", config.game),
            format!(
                "{}\n\n--\nEmpereur, for game {}. The moderator's actions are recorded in the game's journal and history.\n",
                body(tz),
                config.game
            ),
            now,
        );
        outbox::queue(dir, &m)?;
    }
    Ok(())
}
