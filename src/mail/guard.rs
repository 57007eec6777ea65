//! What ingest remembers between runs to keep the game from flooding or
//! being flooded (`mail/guard.toml`): replies sent per address per day
//! (at most `mail.max_replies_per_day`, then journal only), the one fixed
//! reply a day to a sender who is no player, the moderator's digest of
//! those senders, and wrong-password counts per power (after
//! [`FAILURES`] failures in a day, a power's password is not even checked
//! for an hour, then two, four…; its player is told once, with the
//! senders' addresses).

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
    #[serde(default)]
    pub passwords: BTreeMap<PowerId, Throttle>,
    /// Locks that started in this run, to tell the players (not saved).
    #[serde(skip)]
    pub notices: Vec<(PowerId, DateTime<Utc>, Vec<String>)>,
}

/// Wrong passwords of one power.
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

    /// Whether `power`'s password may be checked now; `Err(until)` while
    /// it is locked.
    pub fn may_check(&self, power: PowerId, now: DateTime<Utc>) -> Result<(), DateTime<Utc>> {
        match self.passwords.get(&power).and_then(|t| t.locked_until) {
            Some(until) if now < until => Err(until),
            _ => Ok(()),
        }
    }

    /// Record a wrong password for `power` from `from`. Returns the lock
    /// that starts now, if this failure starts one, with the distinct
    /// senders of the failures that led to it (the player is told once
    /// per lock).
    pub fn failed(&mut self, power: PowerId, from: &str, now: DateTime<Utc>) -> Option<(DateTime<Utc>, Vec<String>)> {
        let t = self.passwords.entry(power).or_default();
        t.failures.retain(|(at, _)| now - *at < Duration::hours(WINDOW_HOURS));
        t.failures.push((now, from.to_ascii_lowercase()));
        if t.failures.len() < FAILURES {
            return None;
        }
        t.lock_hours = if t.lock_hours == 0 {
            FIRST_LOCK_HOURS
        } else {
            (t.lock_hours * 2).min(MAX_LOCK_HOURS)
        };
        let until = now + Duration::hours(t.lock_hours);
        t.locked_until = Some(until);
        let mut senders: Vec<String> = t.failures.drain(..).map(|(_, s)| s).collect();
        senders.sort();
        senders.dedup();
        Some((until, senders))
    }

    /// A right password: the count starts again (the doubling too).
    pub fn succeeded(&mut self, power: PowerId) {
        self.passwords.remove(&power);
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
    fn five_wrong_passwords_lock_for_an_hour_then_double() {
        let mut g = Guard::default();
        let p = PowerId::France;
        for i in 0..4 {
            assert_eq!(g.failed(p, "x@y.org", at(i)), None);
        }
        assert_eq!(
            g.failed(p, "x@y.org", at(4)),
            Some((at(5), vec!["x@y.org".to_string()]))
        );
        assert_eq!(g.may_check(p, at(4)), Err(at(5)));
        assert_eq!(g.may_check(p, at(5)), Ok(()));
        for i in 0..4 {
            assert_eq!(g.failed(p, "x@y.org", at(5)), None, "{i}");
        }
        assert_eq!(g.failed(p, "Z@y.org", at(5)).map(|l| l.0), Some(at(7)));
        // Failures older than the window do not count.
        let mut g = Guard::default();
        for i in 0..4 {
            g.failed(p, "x@y.org", at(i));
        }
        assert_eq!(g.failed(p, "x@y.org", at(30)), None);
        g.succeeded(p);
        assert!(!g.passwords.contains_key(&p));
    }
}
