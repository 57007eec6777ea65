//! `empereur seat`: the moderator seats a new player on a power that has
//! none (a join request answered yes). The player is added to
//! `game.toml`; an NPC becomes a Player Country at the next Turn Start
//! (3.2: the resolution that opens it makes the change, recorded in the
//! hash chain, see `rules::seating`). The new player is mailed a welcome
//! (password, when orders start, the deadline, their units, an order
//! template, the state file as their power sees it) and the open phase's
//! opening. A power that has a player changes hands with
//! `replace-player` instead.
//!
//! 3.0 decides which powers a number of players plays (France and
//! Britain, then Russia, Austria, Prussia, Spain, the Ottoman Empire): a
//! seat that would leave another set is refused unless the moderator asks
//! for a house seating (`--house-seating`), and the journal says so.
//!
//! The password is either one the player chose and sent in their join
//! request (`--password-from-mail`: the last mail from that address in
//! the inbox with a `PASSWORD` line), so it never travels from the
//! moderator, or a fresh random one mailed in the welcome, which the
//! player is asked to change with `SET PASSWORD`.
#![allow(clippy::disallowed_methods)] // adapter: files, mail, OS randomness

use super::{Done, clock};
use crate::ids::{PhaseId, PowerId, Step};
use crate::mail::outbox::{self, FileAttachment, OutMail};
use crate::state::State;
use crate::store::config::PlayerEntry;
use crate::store::{GameConfig, GameDir};
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct SeatArgs {
    /// The game directory.
    pub game: PathBuf,
    /// The power to seat the player on (one without a player).
    pub power: String,
    /// The player's name.
    pub name: String,
    /// The player's address (orders are taken from it only).
    pub email: String,
    /// Take the password from the PASSWORD line of the player's own join
    /// mail in the inbox (default: generate one and mail it).
    pub password_from_mail: bool,
    /// IANA time zone the player reads deadlines in (default: the game's).
    pub timezone: Option<String>,
    /// Seat even when the powers played would not be those 3.0 gives for
    /// that many players (a house seating).
    pub house_seating: bool,
}

/// What a seat did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seated {
    pub power: PowerId,
    /// `None`: a Player Country already, plays from the open phase.
    pub from: Option<PhaseId>,
    /// The password was generated (and mailed), not taken from a mail.
    pub generated: bool,
    /// Ids of the mails queued for the new player.
    pub mails: Vec<String>,
}

/// Why a seat was refused (exit 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeatRefusal {
    #[error("{power} is played by {name} <{email}>; to hand it over use `empereur replace-player`")]
    HasPlayer { power: String, name: String, email: String },
    #[error("'{0}' already belongs to a player of this game (or its moderator)")]
    AddressTaken(String),
    #[error("{0}")]
    Unmailable(String),
    #[error("{0}; --house-seating seats the player anyway")]
    Seating(String),
    #[error(
        "no mail from {0} with a PASSWORD line in the inbox; ask them to send one, or seat them without --password-from-mail (a password is generated and mailed)"
    )]
    NoPasswordMail(String),
}

/// What `empereur seat` did: the player (name and address as given) and
/// the seat, or why it was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatRun {
    pub name: String,
    pub email: String,
    pub seat: Result<Seated, SeatRefusal>,
}

impl std::fmt::Display for SeatRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Ok(s) = &self.seat else { return Ok(()) };
        let (name, email) = (&self.name, &self.email);
        let power = s.power.name();
        match s.from {
            Some(ph) => writeln!(
                f,
                "{name} <{email}> is seated on {power}; {power} becomes a Player Country at the Turn Start {ph} (3.2), and orders from then on"
            )?,
            None => writeln!(f, "{name} <{email}> now plays {power}, from the open phase")?,
        }
        if s.generated {
            writeln!(
                f,
                "a password was generated and mailed to the player (asked to change it with SET PASSWORD)"
            )?;
        } else {
            writeln!(f, "the password is the one the player sent in their join mail")?;
        }
        writeln!(
            f,
            "{} mail(s) queued for the player (a welcome with the state file, the map and the last report); `empereur send` delivers them",
            s.mails.len()
        )
    }
}

impl super::Summary for SeatRun {
    fn done(&self) -> Done {
        if self.seat.is_ok() { Done::Yes } else { Done::No }
    }

    fn stderr(&self) -> String {
        match &self.seat {
            Ok(_) => String::new(),
            Err(refused) => format!("no: {refused}\n"),
        }
    }
}

/// `empereur seat`
pub fn run(a: &SeatArgs) -> Result<SeatRun> {
    let dir = GameDir::new(&a.game);
    let now = clock::now()?;
    Ok(SeatRun {
        name: a.name.clone(),
        email: a.email.trim().to_string(),
        seat: seat_game(&dir, a, now)?,
    })
}

/// Seat the player of `a` in `dir`; the outer error is operational, the
/// inner a refusal.
pub fn seat_game(dir: &GameDir, a: &SeatArgs, now: DateTime<Utc>) -> Result<Result<Seated, SeatRefusal>> {
    let power: PowerId = a.power.parse().map_err(anyhow::Error::msg)?;
    let email = a.email.trim().to_string();
    if let Some(tz) = &a.timezone {
        tz.parse::<chrono_tz::Tz>()
            .map_err(|_| anyhow::anyhow!("--timezone: '{tz}' is not an IANA time zone (e.g. Europe/Madrid)"))?;
    }
    let _lock = dir.lock()?;
    super::resolve::recover(dir)?;
    let mut config = dir.load_config()?;
    if let Some(p) = config.player(power) {
        return Ok(Err(SeatRefusal::HasPlayer {
            power: power.name().to_string(),
            name: p.name.clone(),
            email: p.email.clone(),
        }));
    }
    // 3.0: the number of players decides which powers are played.
    let seated: std::collections::BTreeSet<PowerId> = config.players.iter().map(|p| p.power).chain([power]).collect();
    let house = crate::rules::setup::check_seating(&seated).err();
    if let Some(why) = &house
        && !a.house_seating
    {
        return Ok(Err(SeatRefusal::Seating(why.to_string())));
    }
    if let Err(why) = crate::store::players::valid_email(&email) {
        return Ok(Err(SeatRefusal::Unmailable(why)));
    }
    if config.players.iter().any(|p| p.email.eq_ignore_ascii_case(&email))
        || config.moderator.email.eq_ignore_ascii_case(&email)
        || config.mail_address().eq_ignore_ascii_case(&email)
    {
        return Ok(Err(SeatRefusal::AddressTaken(email)));
    }
    let (password, generated) = if a.password_from_mail {
        match password_in_inbox(&dir.inbox(), &email)? {
            Some(p) => (p, false),
            None => return Ok(Err(SeatRefusal::NoPasswordMail(email))),
        }
    } else {
        (generate_password()?, true)
    };
    let hash = crate::store::password::Hasher::new().hash(&password)?;
    config.players.push(PlayerEntry {
        power,
        name: a.name.trim().to_string(),
        email: email.clone(),
        password_hash: hash,
        timezone: a.timezone.clone(),
    });
    crate::store::atomic_write(&dir.config(), config.to_toml().as_bytes())?;
    let state = dir.load_state()?;
    let from = (!state.power(power).control.is_player()).then(|| next_turn_start(state.phase));
    dir.journal_line(
        &clock::stamp(now),
        &format!(
            "moderator seated {} <{email}> on {power}{} (password {}){}",
            a.name.trim(),
            match from {
                Some(ph) => format!("; a Player Country from {ph}"),
                None => String::new(),
            },
            if generated {
                "generated"
            } else {
                "from the player's mail"
            },
            match &house {
                Some(why) => format!("; a house seating ({why})"),
                None => String::new(),
            }
        ),
    )?;
    let mails = vec![welcome(
        dir,
        &config,
        &state,
        power,
        from,
        generated.then_some(&password),
        now,
    )?];
    // Issue 33: one welcome, not the whole history (HISTORY by mail
    // gives the rest): every entry counts as mailed to the new player.
    super::mailing::mark_mailed_to(dir, power)?;
    super::workflow::announce_except(
        dir,
        &format!("{} has a new player", power.name()),
        &match from {
            Some(ph) => format!(
                "{} is to be played by {}: it becomes a Player Country at the Turn Start {ph} (3.2).",
                power.name(),
                a.name.trim()
            ),
            None => format!("{} is now played by {}. Welcome!", power.name(), a.name.trim()),
        },
        Some(power),
        now,
    )?;
    Ok(Ok(Seated {
        power,
        from,
        generated,
        mails,
    }))
}

/// The Turn Start after the phase `ph` (3.2: when a seated NPC starts to
/// play): the next season's (a Winterphase has none, 4.0), or the first
/// one after the country bid.
pub fn next_turn_start(ph: PhaseId) -> PhaseId {
    let mut turn = ph.turn;
    if ph.step != Step::Bid {
        turn = turn.next();
    }
    if turn.season == crate::ids::Season::Winter {
        turn = turn.next();
    }
    PhaseId {
        turn,
        step: Step::TurnStart,
    }
}

/// The password in the last mail (by Date) from `email` in the inbox that
/// has a `PASSWORD` line (a join request that chose one).
fn password_in_inbox(inbox: &Path, email: &str) -> Result<Option<String>> {
    let mut best: Option<(Option<DateTime<Utc>>, String)> = None;
    for sub in ["cur", "new"] {
        let d = inbox.join(sub);
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries {
            let path = e.with_context(|| format!("cannot list {}", d.display()))?.path();
            let raw = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let head = crate::mail::parse::parse_headers(&raw);
            if !head.from.as_deref().is_some_and(|f| f.eq_ignore_ascii_case(email)) {
                continue;
            }
            let inc = crate::mail::parse::parse(&raw);
            let Some(pw) = inc
                .text
                .as_ref()
                .and_then(|(t, _)| crate::mail::join::offered_password(t))
            else {
                continue;
            };
            if best.as_ref().is_none_or(|(d, _)| inc.date >= *d) {
                best = Some((inc.date, pw));
            }
        }
    }
    Ok(best.map(|(_, p)| p))
}

/// Twelve characters from an alphabet without look-alikes (no 0/O, 1/l/I),
/// about 70 bits, from the OS.
fn generate_password() -> Result<String> {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRTUVWXY23456789";
    let mut out = String::new();
    while out.len() < 12 {
        let mut b = [0u8; 16];
        getrandom::fill(&mut b).map_err(|e| anyhow::anyhow!("no OS randomness: {e}"))?;
        // Rejection sampling: every character equally likely.
        let limit = 256 - 256 % ALPHABET.len();
        out.extend(
            b.iter()
                .filter(|&&x| (x as usize) < limit)
                .map(|&x| ALPHABET[x as usize % ALPHABET.len()] as char),
        );
        out.truncate(12);
    }
    Ok(out)
}

/// The welcome mail: who they play and from when, the password, the
/// deadline, their units, an order template and the state file.
fn welcome(
    dir: &GameDir,
    config: &GameConfig,
    state: &State,
    power: PowerId,
    from: Option<PhaseId>,
    generated: Option<&String>,
    now: DateTime<Utc>,
) -> Result<String> {
    let Some(p) = config.player(power) else {
        anyhow::bail!("{power} has no player after seating");
    };
    let scenario = dir.load_scenario(config)?;
    // Phase ids and addresses are never split at their hyphens.
    let wrap = textwrap::Options::new(72).word_splitter(textwrap::WordSplitter::NoHyphenation);
    let mut body = textwrap::fill(
        &format!(
            "Welcome to game {}, {}: the moderator has seated you on {}.",
            config.game,
            p.name,
            power.name()
        ),
        &wrap,
    );
    body.push_str("\n\n");
    match from {
        Some(ph) => body.push_str(&textwrap::fill(
            &format!(
                "{} is a non-player country (NPC) until the Turn Start {ph}, when it becomes a Player Country (rule 3.2): you give its orders from that phase on. Until then you receive the game's mail, and STATUS, STATE, HISTORY and the other commands answer you.",
                power.name()
            ),
            &wrap,
        )),
        None => body.push_str(&format!("You give {}'s orders from the open phase on.", power.name())),
    }
    body.push_str(&format!("\n\nThe open phase is {}.\n", state.phase));
    match super::mailing::open_deadline(dir, config, now)? {
        Some(d) => body.push_str(&format!(
            "Its deadline: {}\n",
            crate::zone::shown(d, config.player_tz(power))
        )),
        None => body.push_str("Its deadline is set when the phase's clock starts; you will be told.\n"),
    }
    body.push_str("\nYour password:\n");
    match generated {
        Some(pw) => body.push_str(&format!(
            "  {pw}\nIt was made for you; choose your own by sending, from this address:\n  GAME {}\n  POWER {}\n  PASSWORD {pw}\n  SET PASSWORD <your new secret>\n",
            config.game,
            power.id()
        )),
        None => body.push_str(
            "  the one you chose in your mail to the game (it is not repeated here).\n  SET PASSWORD <new secret> in a mail with your PASSWORD line changes it.\n",
        ),
    }
    let units = crate::report::unit_lines(&scenario, state, power);
    if !units.is_empty() {
        body.push_str(&format!("\n{}'s units:\n", power.name()));
        for u in &units {
            body.push_str(&format!("  {u}\n"));
        }
    }
    body.push_str(&last_report(dir, state, power)?);
    body.push_str(&format!(
        "\nYour state file and the map as {} sees it are attached. Send HELP for the orders and commands of the open phase.\n\nOrder template (fill in your password, send back):\n\n{}\n--\nEmpereur, for game {}.\n",
        power.name(),
        crate::mail::compose::order_template(config, &scenario, state, power),
        config.game
    ));
    let mut attachments = vec![FileAttachment::state(state, Some(power))];
    attachments.extend(crate::mail::compose::map_pictures(
        &scenario,
        state,
        None,
        Some(power),
        &state.phase.to_string(),
    )?);
    let m = OutMail {
        attachments,
        ..crate::mail::compose::game_mail(
            config,
            outbox::stable_id(&["seat", &config.game, power.id(), &p.email, &clock::stamp(now)]),
            vec![crate::mail::compose::player_addr(p)],
            format!("Empereur {}: welcome, you play {}", config.game, power.name()),
            body,
            now,
        )
    };
    outbox::queue(dir, &m)?;
    Ok(m.id)
}

/// The welcome's account of the game so far: the last phase resolved,
/// as `power` may see it (what every player read in its public report),
/// and how to read the rest by mail.
fn last_report(dir: &GameDir, state: &State, power: PowerId) -> Result<String> {
    use crate::store::history;
    let wrap = textwrap::Options::new(72).word_splitter(textwrap::WordSplitter::NoHyphenation);
    let mut out = String::new();
    let mut last = None;
    for name in history::list(dir)?.into_values() {
        let (rec, _) = history::read_entry(dir, &name)?;
        if rec.kind == "resolve" {
            last = Some((name, rec));
        }
    }
    let Some((name, rec)) = last else {
        out.push_str("\nNothing has been resolved yet: the game starts with the open phase.\n");
        return Ok(out);
    };
    let p = history::entry_dir(dir, &name).join("outcomes.toml");
    let file: history::OutcomesFile =
        toml::from_str(&crate::store::read_text(&p)?).with_context(|| format!("{} is damaged", p.display()))?;
    out.push_str(&format!(
        "\nThe last phase resolved, {} (history entry {}), as {} sees it:\n",
        rec.phase,
        rec.number,
        power.name()
    ));
    let events = crate::report::TurnReportView::events_for(&file.outcomes, Some(power));
    if events.is_empty() {
        out.push_str(&format!("  nothing {} could see happened.\n", power.name()));
    }
    for e in events {
        out.push_str(&format!("  {}\n", e.summary));
    }
    out.push('\n');
    out.push_str(&textwrap::fill(
        &format!(
            "The rest of the game so far is not mailed to you: send HISTORY (with your GAME, POWER and PASSWORD lines) for every phase and what {} saw of it, and RESEND REPORT <phase> for a phase's whole report. The open phase is {}.",
            power.name(),
            state.phase
        ),
        &wrap,
    ));
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_turn_start_follows_the_phase_and_skips_the_winterphase() {
        let ph = |s: &str| s.parse::<PhaseId>().unwrap();
        let next = |s: &str| next_turn_start(ph(s)).to_string();
        assert_eq!(next("1805-bid"), "1805-fall-turn-start");
        assert_eq!(next("1805-fall-turn-start"), "1806-spring-turn-start");
        assert_eq!(next("1805-fall-build"), "1806-spring-turn-start");
        assert_eq!(next("1806-winter"), "1806-spring-turn-start");
        assert_eq!(next("1806-spring-france"), "1806-summer-turn-start");
    }

    #[test]
    fn a_generated_password_is_twelve_unambiguous_characters_and_new_each_time() {
        let a = generate_password().unwrap();
        let b = generate_password().unwrap();
        assert_eq!(a.len(), 12);
        assert!(
            a.chars().all(|c| c.is_ascii_alphanumeric() && !"0O1lI".contains(c)),
            "{a}"
        );
        assert_ne!(a, b);
    }
}
