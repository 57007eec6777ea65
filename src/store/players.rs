//! `players.toml`, the input to `empereur new`: the moderator and one
//! `[[player]]` per Player Country. Errors name the line.
//!
//! `bid = true` asks for the Country Representation Bid (3.1): the game
//! opens on the bid, each player bids under a provisional seat (its
//! `power`, or when it gives none the next Player Country 3.0 gives, in
//! the order of the file), and the bid decides who plays which power.

use super::config::{Person, PlayerEntry};
use crate::ids::PowerId;
use serde::Deserialize;
use std::collections::BTreeSet;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlayers {
    #[serde(default)]
    moderator: Option<Person>,
    /// 3.1: the players bid for their powers.
    #[serde(default)]
    bid: bool,
    #[serde(default)]
    player: Vec<RawPlayer>,
    /// Addresses that receive what is public, and nothing secret.
    #[serde(default)]
    observer: Vec<Person>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlayer {
    /// Optional only with `bid = true` (a provisional seat, 3.1).
    #[serde(default)]
    power: Option<String>,
    name: String,
    email: String,
    password: String,
    #[serde(default)]
    timezone: Option<String>,
}

/// A player as read, with the password in clear (hashed by the caller,
/// never stored).
pub struct NewPlayer {
    pub power: PowerId,
    pub name: String,
    pub email: String,
    pub password: String,
    /// IANA time zone the player reads deadlines in (default: the game's).
    pub timezone: Option<String>,
}

pub struct Players {
    pub moderator: Person,
    pub players: Vec<NewPlayer>,
    /// 3.1: the game opens on the Country Representation Bid.
    pub bid: bool,
    /// `[[observer]]`: they get the public reports, the public map and
    /// public press (`mail::compose`, `mail::press`), never orders.
    pub observers: Vec<Person>,
}

/// A players file refused because an address in it cannot be mailed:
/// a domain "no" (exit 1), where other faults of the file are exit 2.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Whether the file's addresses include one that cannot be mailed (so
/// that a refusal of the file is [`Refused`]).
pub fn has_unmailable(text: &str) -> bool {
    toml::from_str::<RawPlayers>(text).is_ok_and(|raw| {
        raw.moderator.is_some_and(|m| valid_email(&m.email).is_err())
            || raw.player.iter().any(|p| valid_email(&p.email).is_err())
    })
}

/// Parse and check a players file. Errors read `players.toml:LINE: …`.
pub fn parse(origin: &str, text: &str) -> Result<Players, String> {
    let (moderator, players, bid) = parse_raw(origin, text)?;
    let observers = observers(origin, text, &moderator, &players)?;
    let Some(moderator) = moderator else {
        return Err(format!(
            "{origin}: missing field `moderator` (a [moderator] table with name and email)"
        ));
    };
    Ok(Players {
        moderator,
        players,
        bid,
        observers,
    })
}

/// The `[[observer]]` entries, checked: a name, an address that can be
/// mailed and that is no player's nor the moderator's (an observer's
/// mail is never orders), each once.
fn observers(
    origin: &str,
    text: &str,
    moderator: &Option<Person>,
    players: &[NewPlayer],
) -> Result<Vec<Person>, String> {
    let Ok(raw) = toml::from_str::<RawPlayers>(text) else {
        return Ok(Vec::new()); // parse_raw said why already
    };
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("[[observer]]"))
        .map(|(i, _)| i + 1)
        .collect();
    let mut taken: BTreeSet<String> = players.iter().map(|p| p.email.to_ascii_lowercase()).collect();
    taken.extend(moderator.iter().map(|m| m.email.trim().to_ascii_lowercase()));
    let mut out = Vec::new();
    for (n, o) in raw.observer.into_iter().enumerate() {
        let at = lines.get(n).copied().unwrap_or(1);
        let email = o.email.trim().to_string();
        valid_email(&email).map_err(|why| format!("{origin}:{at}: observer email {why}"))?;
        if o.name.trim().is_empty() {
            return Err(format!("{origin}:{at}: the name of observer '{email}' is empty"));
        }
        if !taken.insert(email.to_ascii_lowercase()) {
            return Err(format!(
                "{origin}:{at}: observer address '{email}' is a player's, the moderator's or another observer's"
            ));
        }
        out.push(Person {
            name: o.name.trim().to_string(),
            email,
        });
    }
    Ok(out)
}

/// Parse the `[[player]]` entries of a file that may hold only those (as
/// `replace-player` takes); a `[moderator]` table, if present, is checked
/// and ignored.
pub fn parse_entries(origin: &str, text: &str) -> Result<Vec<NewPlayer>, String> {
    parse_raw(origin, text).map(|(_, players, _)| players)
}

type Raw = (Option<Person>, Vec<NewPlayer>, bool);

fn parse_raw(origin: &str, text: &str) -> Result<Raw, String> {
    let line_at = |pos: usize| text[..pos.min(text.len())].matches('\n').count() + 1;
    let raw: RawPlayers = toml::from_str(text).map_err(|e| match e.span() {
        Some(s) => format!("{origin}:{}: {}", line_at(s.start), e.message().trim()),
        None => format!("{origin}: {}", e.message().trim()),
    })?;
    // Line of the n-th [[player]] table, for errors about its values.
    let player_lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("[[player]]"))
        .map(|(i, _)| i + 1)
        .collect();
    let value_line = |n: usize, key: &str| -> usize {
        let start = player_lines.get(n).copied().unwrap_or(1);
        text.lines()
            .enumerate()
            .skip(start)
            .take_while(|(_, l)| !l.trim_start().starts_with('['))
            .find(|(_, l)| l.trim_start().starts_with(key))
            .map(|(i, _)| i + 1)
            .unwrap_or(start)
    };
    let mut out = Vec::new();
    let mut powers = BTreeSet::new();
    let mut emails = BTreeSet::new();
    if let Some(m) = &raw.moderator
        && let Err(why) = valid_email(&m.email)
    {
        return Err(format!("{origin}: moderator email {why}"));
    }
    // 3.1: provisional seats for the players who name no power: the
    // Player Countries 3.0 gives for that many players, in order.
    let named: BTreeSet<PowerId> = raw
        .player
        .iter()
        .filter_map(|p| p.power.as_deref().and_then(power_named))
        .collect();
    let mut free = crate::rules::setup::player_countries(raw.player.len())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| !named.contains(p));
    for (n, p) in raw.player.into_iter().enumerate() {
        let power = match &p.power {
            Some(name) => power_named(name).ok_or_else(|| {
                format!(
                    "{origin}:{}: unknown power '{name}' (expected one of france, britain, russia, austria, prussia, spain, ottoman)",
                    value_line(n, "power"),
                )
            })?,
            None if raw.bid => free.next().ok_or_else(|| {
                format!(
                    "{origin}:{}: no seat left for this player: 3.0 gives 2 to 7 Player Countries",
                    player_lines.get(n).copied().unwrap_or(1)
                )
            })?,
            None => {
                return Err(format!(
                    "{origin}:{}: missing field `power` (only a game with `bid = true` seats players without one, 3.1)",
                    player_lines.get(n).copied().unwrap_or(1)
                ));
            }
        };
        if !powers.insert(power) {
            return Err(format!(
                "{origin}:{}: power '{power}' has two players",
                value_line(n, "power")
            ));
        }
        let email = p.email.trim().to_string();
        if let Err(why) = valid_email(&email) {
            return Err(format!("{origin}:{}: email {why}", value_line(n, "email")));
        }
        if !emails.insert(email.to_ascii_lowercase()) {
            return Err(format!(
                "{origin}:{}: address '{email}' is used by two players",
                value_line(n, "email")
            ));
        }
        if p.password.trim().is_empty() {
            return Err(format!(
                "{origin}:{}: the password of {power} is empty",
                value_line(n, "password")
            ));
        }
        if p.name.trim().is_empty() {
            return Err(format!(
                "{origin}:{}: the name of {power}'s player is empty",
                value_line(n, "name")
            ));
        }
        let timezone = p.timezone.map(|t| t.trim().to_string());
        if let Some(tz) = &timezone
            && tz.parse::<chrono_tz::Tz>().is_err()
        {
            return Err(format!(
                "{origin}:{}: timezone '{tz}' is not an IANA time zone (e.g. Europe/Paris)",
                value_line(n, "timezone")
            ));
        }
        out.push(NewPlayer {
            power,
            name: p.name.trim().to_string(),
            email,
            password: p.password,
            timezone,
        });
    }
    if out.is_empty() {
        return Err(format!(
            "{origin}: no [[player]] entries (a game needs at least one player)"
        ));
    }
    Ok((raw.moderator, out, raw.bid))
}

fn power_named(name: &str) -> Option<PowerId> {
    PowerId::ALL
        .into_iter()
        .find(|x| x.id() == name.trim().to_ascii_lowercase())
        .or_else(|| PowerId::parse(name))
}

/// An address the game can mail (see `mail::addressable`), with a dot in
/// its domain; the error says why not.
pub fn valid_email(s: &str) -> Result<(), String> {
    let s = s.trim();
    crate::mail::addressable(s)?;
    if plausible(s) {
        Ok(())
    } else {
        Err(format!("'{s}' is not an email address"))
    }
}

fn plausible(s: &str) -> bool {
    match s.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !s
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>' || c == ',')
        }
        None => false,
    }
}

impl NewPlayer {
    pub fn into_entry(self, hash: String) -> PlayerEntry {
        PlayerEntry {
            power: self.power,
            name: self.name,
            email: self.email,
            password_hash: hash,
            timezone: self.timezone,
        }
    }
}
