//! What ingest remembers between runs to keep the game from flooding or
//! being flooded (`mail/guard.toml`): replies sent per address per day
//! (at most `mail.max_replies_per_day`, then journal only; replies to
//! authenticated mail are counted apart, so junk under a player's forged
//! From cannot use up the receipts of their real orders), the one fixed
//! reply a day to a sender who is no player, the moderator's digest of
//! those senders, and wrong passwords.
//!
//! Wrong passwords are counted per sending address: after [`FAILURES`]
//! in [`WINDOW_HOURS`] from one address, that address's passwords are not
//! even checked for an hour, then two, four… A lock is the sender's,
//! never the victim's: the addresses of a power's own player (on record,
//! or its `SECOND`) are never locked, since anyone can forge them, and a
//! lock on them would make the real player miss the deadline. Guessing
//! under those addresses gives the guesser nothing either: every answer
//! goes to the real mailbox. Failures are also counted per power, to tell
//! the player of record and the moderator once per [`FAILURES`] wrong
//! passwords, with the senders' addresses.

use crate::ids::PowerId;
use crate::store::{GameDir, atomic_write_mode, read_text};
use anyhow::{Context, Result};
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Wrong passwords within [`WINDOW_HOURS`] before a power is locked.
pub const FAILURES: usize = 5;
/// The window in which wrong passwords are counted.
pub const WINDOW_HOURS: i64 = 24;
/// The first lock; each further lock doubles it (up to a week).
pub const FIRST_LOCK_HOURS: i64 = 1;
const MAX_LOCK_HOURS: i64 = 24 * 7;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guard {
    /// Replies per address (lower case): the UTC day and how many.
    #[serde(default)]
    pub replies: BTreeMap<String, (String, u32)>,
    /// Senders who are no player: the UTC day they were last answered.
    #[serde(default)]
    pub strangers: BTreeMap<String, String>,
    /// Lines for the moderator's digest, by UTC day (sent the next day).
    #[serde(default)]
    pub digest: BTreeMap<String, Vec<String>>,
    /// Wrong passwords per power, whoever sent them: only to tell its
    /// player and the moderator (a power is never locked).
    #[serde(default)]
    pub passwords: BTreeMap<PowerId, Throttle>,
    /// Wrong passwords per sending address (lower case) that is not the
    /// power's own: these lock.
    #[serde(default)]
    pub senders: BTreeMap<String, Throttle>,
    /// The UTC day each power's player and the moderator were last told
    /// of guessing (once a day; later guessing goes to the digest).
    #[serde(default)]
    pub told: BTreeMap<PowerId, String>,
    /// Refused messages still kept whole in the archive: their hash and
    /// when they were refused (see [`Guard::due_for_trim`]).
    #[serde(default)]
    pub refused: BTreeMap<String, DateTime<Utc>>,
    /// Guessing found in this run, to tell the players and the moderator
    /// (not saved).
    #[serde(skip)]
    pub notices: Vec<Guessing>,
}

/// [`FAILURES`] wrong passwords for one power: who sent them, and the
/// address locked by the last one, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guessing {
    pub power: PowerId,
    pub senders: Vec<String>,
    /// The sender whose address is now locked, and until when.
    pub locked: Option<(String, DateTime<Utc>)>,
    /// The first notice of the day for this power: its player and the
    /// moderator are told; else it goes to the moderator's digest.
    pub tell: bool,
}

/// Wrong passwords of one power or one sender.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throttle {
    /// Times of the wrong guesses in the window, and who sent them.
    #[serde(default)]
    pub failures: Vec<(DateTime<Utc>, String)>,
    /// Attempts are refused unchecked until then.
    #[serde(default)]
    pub locked_until: Option<DateTime<Utc>>,
    /// The length of the last lock, in hours (doubles).
    #[serde(default)]
    pub lock_hours: i64,
}

fn path(dir: &GameDir) -> PathBuf {
    dir.root.join("mail").join("guard.toml")
}

fn day(now: DateTime<Utc>) -> String {
    now.format("%Y-%m-%d").to_string()
}

impl Guard {
    pub fn load(dir: &GameDir) -> Result<Guard> {
        let p = path(dir);
        if !p.exists() {
            return Ok(Guard::default());
        }
        toml::from_str(&read_text(&p)?).with_context(|| format!("{} is damaged", p.display()))
    }

    pub fn save(&self, dir: &GameDir) -> Result<()> {
        let text = toml::to_string(self).context("serialising the mail guard")?;
        atomic_write_mode(&path(dir), text.as_bytes(), Some(0o600))
    }

    /// Count a reply to `addr`; false when the day's limit is reached
    /// (then nothing is sent to that address).
    pub fn allow_reply(&mut self, addr: &str, limit: u32, now: DateTime<Utc>) -> bool {
        let today = day(now);
        let e = self
            .replies
            .entry(addr.to_ascii_lowercase())
            .or_insert_with(|| (today.clone(), 0));
        if e.0 != today {
            *e = (today, 0);
        }
        if e.1 >= limit {
            return false;
        }
        e.1 += 1;
        true
    }

    /// Whether a sender who is no player is answered today (once a day).
    pub fn answer_stranger(&mut self, addr: &str, now: DateTime<Utc>) -> bool {
        let today = day(now);
        let last = self.strangers.insert(addr.to_ascii_lowercase(), today.clone());
        last.as_deref() != Some(today.as_str())
    }

    pub fn note_for_digest(&mut self, line: String, now: DateTime<Utc>) {
        self.digest.entry(day(now)).or_default().push(line);
    }

    /// Digest lines of days before today, removed from the guard.
    pub fn take_digest(&mut self, now: DateTime<Utc>) -> Vec<(String, Vec<String>)> {
        let today = day(now);
        let old: Vec<String> = self.digest.keys().filter(|d| **d < today).cloned().collect();
        old.into_iter()
            .filter_map(|d| self.digest.remove(&d).map(|l| (d, l)))
            .collect()
    }

    /// Whether a password from `from` may be checked now; `Err(until)`
    /// while that address is locked. `own`: `from` is an address of the
    /// power's own player, which is never locked.
    pub fn may_check(&self, from: &str, own: bool, now: DateTime<Utc>) -> Result<(), DateTime<Utc>> {
        if own {
            return Ok(());
        }
        match self
            .senders
            .get(&from.to_ascii_lowercase())
            .and_then(|t| t.locked_until)
        {
            Some(until) if now < until => Err(until),
            _ => Ok(()),
        }
    }

    /// Record a wrong password for `power` from `from` (`own`: an
    /// address of the power's own player). Every [`FAILURES`] of them
    /// for a power within the window make a [`Guessing`] notice; every
    /// [`FAILURES`] from one other address lock that address (the lock
    /// doubles each time).
    pub fn failed(&mut self, power: PowerId, from: &str, own: bool, now: DateTime<Utc>) {
        let from = from.to_ascii_lowercase();
        let locked = if own {
            None
        } else {
            let t = self.senders.entry(from.clone()).or_default();
            t.count(&from, now).map(|_| (from.clone(), t.lock(now)))
        };
        let t = self.passwords.entry(power).or_default();
        let senders = t.count(&from, now);
        if senders.is_some() || locked.is_some() {
            let tell = self.told.insert(power, day(now)).as_deref() != Some(day(now).as_str());
            self.notices.push(Guessing {
                power,
                senders: senders.unwrap_or_else(|| vec![from.clone()]),
                locked,
                tell,
            });
        }
    }

    /// Refused messages kept whole for `keep_days` days or more: removed
    /// from the list, for the caller to cut down to headers and digest.
    pub fn due_for_trim(&mut self, keep_days: u32, now: DateTime<Utc>) -> Vec<String> {
        let keep = Duration::days(i64::from(keep_days));
        let due: Vec<String> = self
            .refused
            .iter()
            .filter(|(_, at)| now - **at >= keep)
            .map(|(h, _)| h.clone())
            .collect();
        for h in &due {
            self.refused.remove(h);
        }
        due
    }

    /// A right password from `from`: its count starts again (the
    /// doubling too).
    pub fn succeeded(&mut self, from: &str) {
        self.senders.remove(&from.to_ascii_lowercase());
    }
}

impl Throttle {
    /// Count a failure from `from`; when the window holds [`FAILURES`],
    /// empty it and return the distinct senders.
    fn count(&mut self, from: &str, now: DateTime<Utc>) -> Option<Vec<String>> {
        self.failures
            .retain(|(at, _)| now - *at < Duration::hours(WINDOW_HOURS));
        self.failures.push((now, from.to_string()));
        if self.failures.len() < FAILURES {
            return None;
        }
        let mut senders: Vec<String> = self.failures.drain(..).map(|(_, s)| s).collect();
        senders.sort();
        senders.dedup();
        Some(senders)
    }

    /// Start the next lock: an hour, then twice the last (up to a week).
    fn lock(&mut self, now: DateTime<Utc>) -> DateTime<Utc> {
        self.lock_hours = if self.lock_hours == 0 {
            FIRST_LOCK_HOURS
        } else {
            (self.lock_hours * 2).min(MAX_LOCK_HOURS)
        };
        let until = now + Duration::hours(self.lock_hours);
        self.locked_until = Some(until);
        until
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: i64) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-30T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
            + Duration::hours(h)
    }

    #[test]
    fn replies_are_limited_per_address_and_day() {
        let mut g = Guard::default();
        for _ in 0..3 {
            assert!(g.allow_reply("A@x.org", 3, at(1)));
        }
        assert!(!g.allow_reply("a@x.org", 3, at(2)));
        assert!(g.allow_reply("b@x.org", 3, at(2)));
        assert!(g.allow_reply("a@x.org", 3, at(25)));
        assert!(g.answer_stranger("s@x.org", at(1)));
        assert!(!g.answer_stranger("s@x.org", at(5)));
        assert!(g.answer_stranger("s@x.org", at(30)));
    }

    #[test]
    fn five_wrong_passwords_lock_the_sender_not_the_power_then_double() {
        let mut g = Guard::default();
        let p = PowerId::France;
        for i in 0..4 {
            g.failed(p, "x@y.org", false, at(i));
            assert!(g.notices.is_empty(), "{i}");
        }
        assert_eq!(g.may_check("x@y.org", false, at(4)), Ok(()));
        g.failed(p, "X@y.org", false, at(4));
        let n = std::mem::take(&mut g.notices);
        assert_eq!(
            n,
            vec![Guessing {
                power: p,
                senders: vec!["x@y.org".into()],
                locked: Some(("x@y.org".into(), at(5))),
                tell: true,
            }]
        );
        assert_eq!(g.may_check("x@y.org", false, at(4)), Err(at(5)));
        // Another address, and the power's own, are not locked.
        assert_eq!(g.may_check("z@y.org", false, at(4)), Ok(()));
        assert_eq!(g.may_check("x@y.org", true, at(4)), Ok(()));
        // The lock ends on the hour; the next one is twice as long.
        assert_eq!(g.may_check("x@y.org", false, at(5)), Ok(()));
        for _ in 0..4 {
            g.failed(p, "x@y.org", false, at(5));
        }
        assert!(g.notices.is_empty());
        g.failed(p, "x@y.org", false, at(5));
        assert_eq!(g.notices[0].locked, Some(("x@y.org".into(), at(7))));
        // Told once a day: the second notice of the day goes to the digest.
        assert!(!g.notices[0].tell);
        // Failures older than the window do not count.
        let mut g = Guard::default();
        for i in 0..4 {
            g.failed(p, "x@y.org", false, at(i));
        }
        g.failed(p, "x@y.org", false, at(30));
        assert!(g.notices.is_empty());
        g.succeeded("X@y.org");
        assert!(!g.senders.contains_key("x@y.org"));
    }

    #[test]
    fn failures_from_the_power_s_own_address_tell_but_never_lock() {
        let mut g = Guard::default();
        let p = PowerId::France;
        for i in 0..4 {
            g.failed(p, "france@x.org", true, at(i));
            g.failed(p, "france@x.org", true, at(i));
        }
        // Eight failures: one notice (at the fifth), no lock.
        assert_eq!(g.notices.len(), 1);
        assert_eq!(g.notices[0].locked, None);
        assert_eq!(g.notices[0].senders, vec!["france@x.org".to_string()]);
        assert_eq!(g.may_check("france@x.org", false, at(4)), Ok(()));
        assert!(g.senders.is_empty());
        // Two strangers, four each: the power's count tells at the fifth,
        // neither address is locked.
        let mut g = Guard::default();
        for i in 0..4 {
            g.failed(p, "a@e.net", false, at(i));
            g.failed(p, "b@e.net", false, at(i));
        }
        assert_eq!(g.notices.len(), 1);
        assert_eq!(g.notices[0].senders, vec!["a@e.net".to_string(), "b@e.net".to_string()]);
        assert_eq!(g.notices[0].locked, None);
        assert_eq!(g.may_check("a@e.net", false, at(4)), Ok(()));
    }
}
