//! Authentication of an order mail: the game, the power, the password
//! (argon2 hash, constant-time, `store::password::verify`) and the phase.
//! The From address alone never authenticates; a password is always
//! required. When From is not the address on record the orders are still
//! taken with the right password, and the acknowledgement is copied to the
//! address on record, so a forged sender is noticed.

use super::guard::Guard;
use super::prescan::PreHeader;
use crate::ids::{PhaseId, PowerId};
use crate::store::GameConfig;
use chrono::{DateTime, Utc};
use sha2::Digest;
use std::collections::BTreeMap;
use std::fmt;

/// Why a message is not taken as orders. The `Display` text is what the
/// reply and the journal say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No text part, HTML part or `.txt` attachment with any text.
    NoText,
    TooLarge {
        size: u64,
        limit: u64,
    },
    /// Multi-game ingest: no GAME line and not sent to a game's address.
    NoGame,
    UnknownGame {
        named: String,
    },
    /// Single-game ingest: the GAME line names another game.
    WrongGame {
        named: String,
        this: String,
    },
    NoPower,
    UnknownPower {
        named: String,
    },
    /// A power without a player in this game (an NPC, 3.3).
    NotAPlayer {
        power: PowerId,
    },
    NoPassword {
        power: PowerId,
    },
    WrongPassword {
        power: PowerId,
    },
    BadPhase {
        named: String,
    },
    StalePhase {
        named: String,
        open: String,
    },
    /// No PHASE line, and the message was written before the open phase
    /// opened (an old order mail sent again) and answers no mail of it.
    StaleMail {
        date: Option<String>,
        opened: String,
    },
    /// Multi-game: no GAME line, and the sender plays in several games.
    AmbiguousGame,
    /// Too many wrong passwords from this sender's address: its
    /// passwords are not checked until then (a lock is the sender's,
    /// never the power's; see `mail::guard`).
    Locked {
        power: PowerId,
        until: String,
    },
    EntropyTooLong {
        chars: usize,
        limit: usize,
    },
}

/// How the text of a refusal shows what the sender wrote: escaped, cut,
/// and never a password (a POWER line with the PASSWORD glued to it).
fn shown(s: &str) -> String {
    let cut = match s.to_ascii_lowercase().find("password") {
        Some(i) => format!("{}[…]", &s[..i]),
        None => s.to_string(),
    };
    super::escape::line(cut.trim(), 60)
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoText => write!(
                f,
                "the message has no text: no text/plain part, no HTML part and no .txt attachment"
            ),
            Refusal::TooLarge { size, limit } => write!(
                f,
                "the message is {size} bytes, over this game's limit of {limit} bytes; send the orders as plain text without attachments or quoted mail"
            ),
            Refusal::NoGame => write!(
                f,
                "no GAME line, and the message was not sent to the address of any game hosted here"
            ),
            Refusal::UnknownGame { named } => write!(f, "no game '{}' is hosted here", shown(named)),
            Refusal::WrongGame { named, this } => {
                write!(
                    f,
                    "the GAME line names '{}', but this address is game '{this}'",
                    shown(named)
                )
            }
            Refusal::NoPower => write!(
                f,
                "no POWER line, and the sender is not the address on record of any power"
            ),
            Refusal::UnknownPower { named } => write!(
                f,
                "no power '{}' (powers: france, britain, russia, austria, prussia, spain, ottoman)",
                shown(named)
            ),
            Refusal::NotAPlayer { power } => write!(f, "{} has no player in this game", power.name()),
            Refusal::NoPassword { power } => write!(
                f,
                "no PASSWORD line; orders for {} need the power's password",
                power.name()
            ),
            Refusal::WrongPassword { power } => write!(f, "wrong password for {}", power.name()),
            Refusal::BadPhase { named } => {
                write!(
                    f,
                    "'{}' is not a phase id (e.g. 1805-fall-france, 1806-winter)",
                    shown(named)
                )
            }
            Refusal::StalePhase { named, open } => write!(
                f,
                "the PHASE line names {named}, but the open phase is {open}; nothing was stored"
            ),
            Refusal::StaleMail { date, opened } => write!(
                f,
                "this mail is dated {}, before phase {opened} opened, and has no PHASE line: it is taken as an old mail sent again, and nothing was stored. Send your orders again (a PHASE line makes them count whatever the date)",
                date.as_deref()
                    .map(shown)
                    .unwrap_or_else(|| "nowhere (no Date: line)".into())
            ),
            Refusal::AmbiguousGame => write!(
                f,
                "you play in more than one game here and the message has no GAME line; put a line `GAME <id>` at the top"
            ),
            Refusal::Locked { power, until } => write!(
                f,
                "too many wrong passwords from your address: passwords for {} from it are not checked until {until}",
                power.name()
            ),
            Refusal::EntropyTooLong { chars, limit } => {
                write!(f, "the ENTROPY line has {chars} characters; at most {limit} are taken")
            }
        }
    }
}

impl Refusal {
    /// A short stable code for the journal and tests.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::NoText => "no-text",
            Refusal::TooLarge { .. } => "too-large",
            Refusal::NoGame => "no-game",
            Refusal::UnknownGame { .. } => "unknown-game",
            Refusal::WrongGame { .. } => "wrong-game",
            Refusal::NoPower => "no-power",
            Refusal::UnknownPower { .. } => "unknown-power",
            Refusal::NotAPlayer { .. } => "not-a-player",
            Refusal::NoPassword { .. } => "no-password",
            Refusal::WrongPassword { .. } => "wrong-password",
            Refusal::BadPhase { .. } => "bad-phase",
            Refusal::StalePhase { .. } => "stale-phase",
            Refusal::StaleMail { .. } => "stale-mail",
            Refusal::AmbiguousGame => "ambiguous-game",
            Refusal::Locked { .. } => "locked",
            Refusal::EntropyTooLong { .. } => "entropy-too-long",
        }
    }
}

/// A sender who proved to be a power's player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authenticated {
    pub power: PowerId,
    /// The address on record for the power.
    pub on_record: String,
    /// Whether From is the address on record (and vouched for).
    pub sender_on_record: bool,
    /// Whether From may be taken as the sender's ([`Sender::vouched`]).
    pub vouched: bool,
}

/// Passwords already verified in this run, keyed by power, stored hash
/// and a SHA-256 of the password (argon2 is deliberately slow; a run of
/// thousands of messages checks each password once), and the one argon2
/// buffer every check of the run reuses.
#[derive(Default)]
pub struct PasswordCache {
    seen: BTreeMap<(PowerId, String, [u8; 32]), bool>,
    /// Stored hashes replaced during this run (`SET PASSWORD`), old to
    /// new: the run's game context still holds the old one, and the old
    /// password must stop working at once, not at the next run.
    replaced: BTreeMap<String, String>,
    hasher: crate::store::password::Hasher,
    /// How many argon2 verifications ran (for the benchmark).
    pub verifications: u64,
}

impl PasswordCache {
    /// Record that the stored hash `old` was replaced by `new` in this run.
    pub fn replace(&mut self, old: &str, new: &str) {
        self.replaced.insert(old.to_string(), new.to_string());
    }

    pub fn verify(&mut self, power: PowerId, password: &str, stored: &str) -> bool {
        // Follow the replacements made in this run (each hash is salted,
        // so a chain never loops; the bound is only a guard).
        let mut stored = stored;
        for _ in 0..=self.replaced.len() {
            match self.replaced.get(stored) {
                Some(new) => stored = new,
                None => break,
            }
        }
        let key = (
            power,
            stored.to_string(),
            sha2::Sha256::digest(password.as_bytes()).into(),
        );
        if let Some(ok) = self.seen.get(&key) {
            return *ok;
        }
        self.verifications += 1;
        let ok = self.hasher.verify(password, stored);
        self.seen.insert(key, ok);
        ok
    }
}

/// Who sent a message: its From, and each power's `SECOND` address,
/// which like the address on record is the power's own (never locked by
/// wrong passwords, see `mail::guard`).
#[derive(Clone, Copy, Debug)]
pub struct Sender<'a> {
    pub from: Option<&'a str>,
    pub seconds: &'a BTreeMap<PowerId, String>,
    /// Whether `from` may be taken as the sender's: always, unless the
    /// game trusts its server's `Authentication-Results` and that header
    /// does not vouch for it (`mail::authres`). An address not vouched
    /// for is never the player's own: the mail is answered as from a
    /// sender not on record, and its wrong passwords lock it.
    pub vouched: bool,
}

/// Decide who sent the orders.
pub fn authenticate(
    config: &GameConfig,
    open_phase: PhaseId,
    sender: Sender<'_>,
    pre: &PreHeader,
    cache: &mut PasswordCache,
    guard: &mut Guard,
    now: DateTime<Utc>,
) -> Result<Authenticated, Refusal> {
    let from = sender.from;
    if let Some(named) = &pre.game
        && !named.eq_ignore_ascii_case(&config.game)
    {
        return Err(Refusal::WrongGame {
            named: named.clone(),
            this: config.game.clone(),
        });
    }
    let power = match &pre.power {
        Some(named) => PowerId::parse(named).ok_or_else(|| Refusal::UnknownPower { named: named.clone() })?,
        None => {
            // No POWER line: the sender's address on record names it.
            let from = from.ok_or(Refusal::NoPower)?;
            config
                .players
                .iter()
                .find(|p| p.email.eq_ignore_ascii_case(from))
                .map(|p| p.power)
                .ok_or(Refusal::NoPower)?
        }
    };
    let player = config.player(power).ok_or(Refusal::NotAPlayer { power })?;
    let password = pre.password.as_deref().ok_or(Refusal::NoPassword { power })?;
    let (seconds, vouched) = (sender.seconds, sender.vouched);
    let sender = from.unwrap_or("-");
    let own = vouched
        && (sender.eq_ignore_ascii_case(&player.email)
            || seconds.get(&power).is_some_and(|s| s.eq_ignore_ascii_case(sender)));
    // Guessing: after a few wrong passwords from one address, none from
    // it is even checked for a while (the lock doubles); the player and
    // the moderator are told by the caller.
    if let Err(until) = guard.may_check(sender, own, now) {
        return Err(Refusal::Locked {
            power,
            until: until.format("%Y-%m-%d %H:%M UTC").to_string(),
        });
    }
    if !cache.verify(power, password, &player.password_hash) {
        guard.failed(power, sender, own, now);
        return Err(Refusal::WrongPassword { power });
    }
    guard.succeeded(sender);
    if let Some(named) = &pre.phase {
        let phase: PhaseId = named.parse().map_err(|_| Refusal::BadPhase { named: named.clone() })?;
        if phase != open_phase {
            return Err(Refusal::StalePhase {
                named: phase.to_string(),
                open: open_phase.to_string(),
            });
        }
    }
    Ok(Authenticated {
        power,
        on_record: player.email.clone(),
        sender_on_record: vouched && from.is_some_and(|f| f.eq_ignore_ascii_case(&player.email)),
        vouched,
    })
}
