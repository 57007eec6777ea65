//! `.wake`: whether the next `run` has anything to do for a game, decided
//! from the clock and file identities alone, before any state is read.
//!
//! A run that finishes with nothing left to do records the earliest time
//! anything becomes due by the clock alone (a deadline, a reminder, the
//! end of grace or of the change-of-mind delay; see [`next_change`]) and
//! the identity (inode, size, modification time) of every file a run's
//! decisions read. Until that time, and while none of those files has
//! changed, no mail waits in `mail/inbox/new/` or the outbox, and no mail
//! for the game comes in, a run has nothing to do: [`quiet`] says so
//! after a few `stat` calls. Every durable write goes through a rename, so
//! a changed file has a new inode even within one timestamp tick, or
//! through an exchange with a spare (`store::spare`), which can give a
//! file back an inode it had before and so removes this file.
//!
//! The file is a cache: written without fsync, removed when a full run
//! starts (a run that fails leaves none), and anything unreadable in it
//! means "run fully".
#![allow(clippy::disallowed_methods)] // adapter: file times and the clock's output

use super::GameDir;
use crate::schedule::{Absence, DeadlineConfig, PhaseClock};
use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Files whose change may change what a run does (relative to the game
/// directory); every file of `phase/orders/` is watched too.
const WATCHED: &[&str] = &[
    "game.toml",
    "state.toml",
    "schedule.toml",
    "phase",
    "phase/clock.toml",
    "phase/commitment",
    "phase/next-seed",
    "phase/orders",
    "history",
    "history/head.toml",
    "mail/mailed.toml",
    "templates",
    "scenario",
];

/// Directories that must be empty for a run to have nothing to do.
const MUST_BE_EMPTY: &[&str] = &["mail/inbox/new", "mail/outbox"];

fn wake_path(dir: &GameDir) -> PathBuf {
    dir.root.join(".wake")
}

/// One file's identity: inode, size, mtime (seconds, nanoseconds); a
/// missing file is `-`.
fn identity(p: &Path) -> String {
    match fs::symlink_metadata(p) {
        #[cfg(unix)]
        Ok(m) => {
            use std::os::unix::fs::MetadataExt;
            format!("{} {} {}.{}", m.ino(), m.size(), m.mtime(), m.mtime_nsec())
        }
        #[cfg(not(unix))]
        Ok(m) => format!(
            "{} {:?}",
            m.len(),
            m.modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        ),
        Err(_) => "-".to_string(),
    }
}

/// The identities of every watched file, by relative path.
fn fingerprint(dir: &GameDir) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = WATCHED
        .iter()
        .map(|rel| (rel.to_string(), identity(&dir.root.join(rel))))
        .collect();
    if let Ok(rd) = fs::read_dir(dir.phase_orders()) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            out.insert(format!("phase/orders/{name}"), identity(&e.path()));
        }
    }
    out
}

fn is_empty_dir(p: &Path) -> bool {
    match fs::read_dir(p) {
        Ok(mut rd) => rd.next().is_none(),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    }
}

/// The game id recorded with the wake-up time, if a run at `now` has
/// nothing to do (see the module doc); `None`: run fully.
pub fn quiet(dir: &GameDir, now: DateTime<Utc>) -> Option<String> {
    let text = fs::read_to_string(wake_path(dir)).ok()?;
    let mut lines = text.lines();
    let game = lines.next()?.strip_prefix("game ")?.to_string();
    let at = lines.next()?.strip_prefix("at ")?;
    if at != "never" {
        let at = DateTime::parse_from_rfc3339(at).ok()?.with_timezone(&Utc);
        if now >= at {
            return None;
        }
    }
    if !MUST_BE_EMPTY.iter().all(|rel| is_empty_dir(&dir.root.join(rel))) {
        return None;
    }
    // An unfinished batch: the full run's lock recovers it first.
    if super::checkpoint::dir_of(dir).exists() {
        return None;
    }
    let mut recorded = BTreeMap::new();
    for l in lines {
        let (rel, id) = l.split_once('\t')?;
        recorded.insert(rel.to_string(), id.to_string());
    }
    (recorded == fingerprint(dir)).then_some(game)
}

/// Forget the wake-up time: a full run has started.
pub fn clear(dir: &GameDir) {
    let _ = fs::remove_file(wake_path(dir));
}

/// Record that nothing is due before `at` (`None`: only a file change can
/// make something due) for the game `game`, unless mail is waiting.
pub fn save(dir: &GameDir, game: &str, at: Option<DateTime<Utc>>) {
    if !MUST_BE_EMPTY.iter().all(|rel| is_empty_dir(&dir.root.join(rel))) {
        return;
    }
    let mut text = format!(
        "game {game}\nat {}\n",
        at.map(|t| t.to_rfc3339()).unwrap_or_else(|| "never".to_string())
    );
    for (rel, id) in fingerprint(dir) {
        text.push_str(&format!("{rel}\t{id}\n"));
    }
    // A cache: no fsync; a torn file fails to parse and means "run fully".
    let tmp = dir.root.join(".wake.tmp");
    if fs::write(&tmp, text).is_ok() {
        let _ = fs::rename(&tmp, wake_path(dir));
    }
}

/// The earliest instant after `now` at which the clock alone can change
/// what a run does for the open phase (resolve, or queue a reminder):
/// the deadline, the first reminder, each daily reminder in grace, the end
/// of grace, and, when every power that must order is in, the end of the
/// change-of-mind delay (`change_of_mind_until`, from
/// [`crate::schedule::change_of_mind_until`]). `None` when paused (only `resume`, a file
/// change, can).
/// Candidates that turn out not to matter only cost a full run.
pub fn next_change(
    clock: &PhaseClock,
    now: DateTime<Utc>,
    cfg: &DeadlineConfig,
    tz: Tz,
    absences: &[Absence],
    change_of_mind_until: Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    if clock.paused_since.is_some() {
        return None;
    }
    let deadline = clock.deadline(now, cfg, tz, absences);
    let half = clock.opened + (deadline - clock.opened) / 2;
    let first = (deadline - Duration::hours(i64::from(cfg.reminder_hours_before))).max(half);
    let mut candidates = vec![deadline, first, deadline + Duration::hours(i64::from(cfg.grace_hours))];
    if let Some(t) = change_of_mind_until {
        candidates.push(t);
    }
    if now >= deadline {
        candidates.push(deadline + Duration::days((now - deadline).num_days() + 1));
    }
    // Nothing after `now` (past grace, yet unresolved): wake at once.
    Some(candidates.into_iter().filter(|t| *t > now).min().unwrap_or(now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PowerId;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    /// Between `now` and the wake-up time, the clock's answers do not
    /// change: probe every 10 minutes through a whole phase and grace,
    /// with and without submissions, for several configurations.
    #[test]
    fn nothing_changes_before_the_wake_up_time() {
        let tz: Tz = "Europe/Paris".parse().unwrap();
        let opened = t("2026-11-30T10:00:00Z");
        let must = [PowerId::France, PowerId::Britain];
        for cfg in [
            DeadlineConfig::default(),
            DeadlineConfig {
                time_of_day: Some("20:00".into()),
                grace_hours: 60,
                reminder_hours_before: 48,
                ..DeadlineConfig::default()
            },
        ] {
            let mut clock = PhaseClock::open(opened, crate::ids::Step::PlayerTurn(PowerId::France), &cfg, tz);
            for subs in [
                BTreeMap::new(),
                BTreeMap::from([(PowerId::France, t("2026-12-01T08:00:00Z"))]),
                BTreeMap::from([
                    (PowerId::France, t("2026-11-30T12:00:00Z")),
                    (PowerId::Britain, t("2026-12-02T09:05:00Z")),
                ]),
                // A power that need not order mails later: it restarts nothing.
                BTreeMap::from([
                    (PowerId::France, t("2026-11-30T12:00:00Z")),
                    (PowerId::Britain, t("2026-12-02T09:05:00Z")),
                    (PowerId::Russia, t("2026-12-02T09:25:00Z")),
                ]),
            ] {
                let missing: Vec<PowerId> = must.iter().copied().filter(|p| !subs.contains_key(p)).collect();
                let last = missing
                    .is_empty()
                    .then(|| crate::schedule::change_of_mind_until(opened, &cfg, &must, &subs));
                let mut now = opened;
                let end = opened + Duration::days(8);
                while now < end {
                    let at = next_change(&clock, now, &cfg, tz, &[], last).unwrap();
                    assert!(at >= now);
                    let due = clock.due(now, &cfg, tz, &[], &must, &subs);
                    let rem = clock.reminders_due(now, &cfg, tz, &[], &missing);
                    let mut probe = now + Duration::minutes(10);
                    while probe < at {
                        assert_eq!(
                            clock.due(probe, &cfg, tz, &[], &must, &subs),
                            due,
                            "due at {probe} (now {now})"
                        );
                        assert_eq!(
                            clock.reminders_due(probe, &cfg, tz, &[], &missing),
                            rem,
                            "reminders at {probe} (now {now})"
                        );
                        probe += Duration::minutes(10);
                    }
                    // What a run does at `now`: queue the reminders due.
                    for p in &rem {
                        clock.reminded.entry(*p).or_default().push(now);
                    }
                    now = if at > now { at } else { now + Duration::minutes(10) };
                }
                clock.reminded.clear();
            }
        }
    }

    #[test]
    fn a_run_is_quiet_until_a_file_changes_or_the_time_comes() {
        let d = tempfile::tempdir().unwrap();
        let g = GameDir::new(d.path());
        g.create_layout().unwrap();
        fs::write(g.state(), "one").unwrap();
        let now = t("2026-01-05T10:00:00Z");
        assert_eq!(quiet(&g, now), None, "no .wake: run fully");
        save(&g, "demo", Some(t("2026-01-06T10:00:00Z")));
        assert_eq!(quiet(&g, now).as_deref(), Some("demo"));
        assert_eq!(quiet(&g, t("2026-01-06T10:00:00Z")), None, "the time has come");
        // A replaced file (new inode, same size, maybe the same tick).
        super::super::atomic_write(&g.state(), b"two").unwrap();
        assert_eq!(quiet(&g, now), None);
        save(&g, "demo", None);
        assert!(
            quiet(&g, t("2036-01-01T00:00:00Z")).is_some(),
            "paused: only files wake it"
        );
        // A new submission, mail waiting.
        fs::write(g.phase_orders().join("france.toml"), "x").unwrap();
        assert_eq!(quiet(&g, now), None);
        save(&g, "demo", None);
        fs::write(g.inbox().join("new").join("abc"), "mail").unwrap();
        assert_eq!(quiet(&g, now), None);
        save(&g, "demo", None);
        assert_eq!(quiet(&g, now), None, "not recorded while mail waits");
        fs::remove_file(g.inbox().join("new").join("abc")).unwrap();
        save(&g, "demo", None);
        assert!(quiet(&g, now).is_some());
        clear(&g);
        assert_eq!(quiet(&g, now), None);
    }
}
