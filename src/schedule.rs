//! Deadlines, grace, reminders, early processing and absences: when a
//! phase is due. Pure: the current time is always passed in, so tests
//! drive a game through weeks without sleeping.
//!
//! A phase opens at `opened`; its deadline is `opened + hours(kind)`,
//! snapped forward to the configured time of day and allowed weekdays in
//! the game's time zone, extended by the moderator (`extend`), by absences
//! (within the moderator's limit) and by time spent paused. It resolves
//! early when every power that must order is in and the change-of-mind
//! delay has passed since the last submission; otherwise at deadline +
//! grace, when missing powers get their standing orders and defaults.

use crate::ids::{PowerId, Step};
use chrono::{DateTime, Datelike, Duration, NaiveTime, TimeZone, Utc, Weekday};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `[deadlines]` in game.toml.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DeadlineConfig {
    pub bid_hours: u32,
    pub turn_start_hours: u32,
    pub player_turn_hours: u32,
    pub build_hours: u32,
    pub winter_hours: u32,
    /// Snap every deadline forward to this local time of day, `HH:MM`.
    pub time_of_day: Option<String>,
    /// Days a deadline may fall on (`mon` … `sun`); empty = every day.
    pub weekdays: Vec<String>,
    pub grace_hours: u32,
    /// First reminder this long before the deadline; then daily in grace
    /// from its second day (the first reminder says when grace ends).
    pub reminder_hours_before: u32,
    /// Early processing waits this long after the last submission.
    pub change_of_mind_minutes: u32,
    /// The most an absence may extend one deadline.
    pub absence_limit_hours: u32,
}

impl Default for DeadlineConfig {
    fn default() -> Self {
        // House defaults (the book sets no deadlines): Player Turn 72 h,
        // Build 48 h, Winterphase 96 h.
        DeadlineConfig {
            bid_hours: 72,
            turn_start_hours: 24,
            player_turn_hours: 72,
            build_hours: 48,
            winter_hours: 96,
            time_of_day: None,
            weekdays: Vec::new(),
            grace_hours: 24,
            reminder_hours_before: 24,
            change_of_mind_minutes: 30,
            absence_limit_hours: 168,
        }
    }
}

/// An absence a player announced: no deadline should fall inside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Absence {
    pub power: PowerId,
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

/// The clock of the open phase (`phase/clock.toml`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseClock {
    /// The phase this clock belongs to; a clock of another phase is stale.
    #[serde(default)]
    pub phase: Option<crate::ids::PhaseId>,
    pub opened: DateTime<Utc>,
    /// The deadline as computed when the phase opened (before pauses,
    /// extensions and absences).
    pub base_deadline: DateTime<Utc>,
    /// Hours the moderator added with `extend`.
    #[serde(default)]
    pub extended_hours: u32,
    /// When the game was paused, if it is paused now.
    #[serde(default)]
    pub paused_since: Option<DateTime<Utc>>,
    /// Total time spent paused in this phase, in seconds.
    #[serde(default)]
    pub paused_seconds: i64,
    /// Reminders already queued: power -> times.
    #[serde(default)]
    pub reminded: BTreeMap<PowerId, Vec<DateTime<Utc>>>,
}

/// Whether a phase should resolve now, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Due {
    /// Not yet: waiting for orders until the deadline.
    Waiting { deadline: DateTime<Utc> },
    /// Every power is in; waiting for the change-of-mind delay to pass.
    ChangeOfMind { until: DateTime<Utc> },
    /// Past the deadline, inside grace.
    Grace { ends: DateTime<Utc> },
    /// Resolve now: everyone in and the delay passed.
    Early,
    /// Resolve now: grace is over; these powers are late.
    Late { missing: Vec<PowerId> },
    /// The game is paused.
    Paused,
}

pub fn parse_weekday(s: &str) -> Option<Weekday> {
    Some(match s.trim().to_ascii_lowercase().get(..3)? {
        "mon" => Weekday::Mon,
        "tue" => Weekday::Tue,
        "wed" => Weekday::Wed,
        "thu" => Weekday::Thu,
        "fri" => Weekday::Fri,
        "sat" => Weekday::Sat,
        "sun" => Weekday::Sun,
        _ => return None,
    })
}

impl DeadlineConfig {
    /// Check the configuration, naming the bad key.
    pub fn check(&self) -> Result<(), String> {
        if let Some(t) = &self.time_of_day {
            NaiveTime::parse_from_str(t, "%H:%M").map_err(|_| format!("deadlines.time_of_day '{t}' is not HH:MM"))?;
        }
        for d in &self.weekdays {
            parse_weekday(d).ok_or_else(|| format!("deadlines.weekdays: '{d}' is not a weekday (mon … sun)"))?;
        }
        Ok(())
    }

    pub fn hours(&self, step: Step) -> u32 {
        match step {
            Step::Bid => self.bid_hours,
            Step::TurnStart => self.turn_start_hours,
            Step::PlayerTurn(_) => self.player_turn_hours,
            Step::Build => self.build_hours,
            Step::Winter => self.winter_hours,
        }
    }

    /// The deadline of a phase of kind `step` opened at `opened`, snapped
    /// to the time of day and allowed weekdays in `tz`.
    pub fn deadline(&self, opened: DateTime<Utc>, step: Step, tz: Tz) -> DateTime<Utc> {
        let raw = opened + Duration::hours(i64::from(self.hours(step)));
        self.snap(raw, tz)
    }

    /// Move `t` forward to the next allowed local time of day and weekday.
    pub fn snap(&self, t: DateTime<Utc>, tz: Tz) -> DateTime<Utc> {
        let days: Vec<Weekday> = self.weekdays.iter().filter_map(|d| parse_weekday(d)).collect();
        let tod = self
            .time_of_day
            .as_deref()
            .and_then(|s| NaiveTime::parse_from_str(s, "%H:%M").ok());
        let local = t.with_timezone(&tz);
        // Try today and the next 8 days; one of them is allowed.
        for add in 0..9 {
            let date = local.date_naive() + Duration::days(add);
            if !days.is_empty() && !days.contains(&date.weekday()) {
                continue;
            }
            let candidate = match tod {
                Some(time) => {
                    let naive = date.and_time(time);
                    // A time skipped by a DST change moves an hour on.
                    match tz.from_local_datetime(&naive).earliest() {
                        Some(c) => c.with_timezone(&Utc),
                        None => match tz.from_local_datetime(&(naive + Duration::hours(1))).earliest() {
                            Some(c) => c.with_timezone(&Utc),
                            None => continue,
                        },
                    }
                }
                None if add == 0 => t,
                None => match tz.from_local_datetime(&date.and_time(NaiveTime::MIN)).earliest() {
                    Some(c) => c.with_timezone(&Utc),
                    None => continue,
                },
            };
            if candidate >= t {
                return candidate;
            }
        }
        t
    }
}

/// When the change-of-mind delay ends, once every power in `must` is in:
/// the delay after the last submission of a power that must order (after
/// the opening if none must). Submissions of other powers do not count.
pub fn change_of_mind_until(
    opened: DateTime<Utc>,
    cfg: &DeadlineConfig,
    must: &[PowerId],
    submitted: &BTreeMap<PowerId, DateTime<Utc>>,
) -> DateTime<Utc> {
    let last = must
        .iter()
        .filter_map(|p| submitted.get(p))
        .max()
        .copied()
        .unwrap_or(opened);
    last + Duration::minutes(i64::from(cfg.change_of_mind_minutes))
}

/// What [`PhaseClock::due`] said (`due`), when the powers in `awaited`
/// owe an answer to a proposal, offer or cession of this phase (issue
/// 33): the phase does not resolve early while one is awaited, and waits
/// for it until the `deadline` now in force, no longer (the deadline
/// still closes it; grace is for powers that must order).
pub fn hold_for_answers(due: Due, deadline: DateTime<Utc>, now: DateTime<Utc>, awaited: &[PowerId]) -> Due {
    if awaited.is_empty() || now >= deadline || !matches!(due, Due::Early | Due::ChangeOfMind { .. }) {
        return due;
    }
    Due::Waiting { deadline }
}

/// What [`PhaseClock::due`] said (`due`), with the READY and WAIT lines
/// of the powers that must order (`said`, for the open phase;
/// orders/README.md, "Ready and wait"). A WAIT keeps the phase open until
/// the `deadline` in force (then it closes as it would have); READY from
/// every power that must order closes it without the change-of-mind
/// delay, since nobody means to change their mind. WAIT wins over READY.
/// A power that gives no orders this phase holds nothing up.
pub fn with_readiness(
    due: Due,
    deadline: DateTime<Utc>,
    now: DateTime<Utc>,
    must: &[PowerId],
    said: &BTreeMap<PowerId, crate::orders::ast::Readiness>,
) -> Due {
    use crate::orders::ast::Readiness;
    let early = matches!(due, Due::Early | Due::ChangeOfMind { .. });
    if early && now < deadline && must.iter().any(|p| said.get(p) == Some(&Readiness::Wait)) {
        return Due::Waiting { deadline };
    }
    if matches!(due, Due::ChangeOfMind { .. }) && must.iter().all(|p| said.get(p) == Some(&Readiness::Ready)) {
        return Due::Early;
    }
    due
}

impl PhaseClock {
    pub fn open(opened: DateTime<Utc>, step: Step, cfg: &DeadlineConfig, tz: Tz) -> PhaseClock {
        PhaseClock {
            phase: None,
            opened,
            base_deadline: cfg.deadline(opened, step, tz),
            extended_hours: 0,
            paused_since: None,
            paused_seconds: 0,
            reminded: BTreeMap::new(),
        }
    }

    /// The deadline now in force: base + extensions + time paused +
    /// absences (each capped at the moderator's limit), re-snapped.
    pub fn deadline(&self, now: DateTime<Utc>, cfg: &DeadlineConfig, tz: Tz, absences: &[Absence]) -> DateTime<Utc> {
        let paused = self.paused_seconds + self.paused_since.map(|p| (now - p).num_seconds().max(0)).unwrap_or(0);
        let mut d = self.base_deadline + Duration::hours(i64::from(self.extended_hours)) + Duration::seconds(paused);
        // An absence that covers the deadline pushes it past the absence's
        // end, by at most the limit.
        let limit = Duration::hours(i64::from(cfg.absence_limit_hours));
        let start = d;
        for a in absences {
            if a.from <= d && d < a.until {
                d = (a.until).min(start + limit);
            }
        }
        if d != start { cfg.snap(d, tz) } else { d }
    }

    /// Whether the phase is due at `now`. `must` are the powers that must
    /// order; `submitted` maps powers that did to their last submission.
    pub fn due(
        &self,
        now: DateTime<Utc>,
        cfg: &DeadlineConfig,
        tz: Tz,
        absences: &[Absence],
        must: &[PowerId],
        submitted: &BTreeMap<PowerId, DateTime<Utc>>,
    ) -> Due {
        if self.paused_since.is_some() {
            return Due::Paused;
        }
        let deadline = self.deadline(now, cfg, tz, absences);
        let missing: Vec<PowerId> = must.iter().copied().filter(|p| !submitted.contains_key(p)).collect();
        let ends = deadline + Duration::hours(i64::from(cfg.grace_hours));
        if missing.is_empty() {
            // Only a power that must order restarts the delay (a power that
            // may only answer cannot keep the phase open by mailing every
            // 25 minutes), and the delay never runs past deadline + grace.
            let until = change_of_mind_until(self.opened, cfg, must, submitted).min(ends);
            return if now >= until {
                Due::Early
            } else {
                Due::ChangeOfMind { until }
            };
        }
        if now < deadline {
            return Due::Waiting { deadline };
        }
        if now < ends {
            Due::Grace { ends }
        } else {
            Due::Late { missing }
        }
    }

    /// Reminders to queue at `now` for the `missing` powers: one when the
    /// deadline is `reminder_hours_before` away, then one a day in grace.
    /// The first day of grace needs none when the power was reminded
    /// before the deadline: that reminder said when grace ends and what
    /// applies after it (issue 37: one mail where two said the same).
    pub fn reminders_due(
        &self,
        now: DateTime<Utc>,
        cfg: &DeadlineConfig,
        tz: Tz,
        absences: &[Absence],
        missing: &[PowerId],
    ) -> Vec<PowerId> {
        if self.paused_since.is_some() {
            return Vec::new();
        }
        let deadline = self.deadline(now, cfg, tz, absences);
        // Never in the first half of the phase: a reminder right after the
        // phase-opening mail would only be noise.
        let half = self.opened + (deadline - self.opened) / 2;
        let first = (deadline - Duration::hours(i64::from(cfg.reminder_hours_before))).max(half);
        if now < first {
            return Vec::new();
        }
        // The slot this reminder belongs to: before the deadline, the
        // first reminder; in grace, one per started day after it.
        let slot = if now < deadline {
            first
        } else {
            deadline + Duration::days((now - deadline).num_days())
        };
        // A reminder from `first` on, sent before the deadline, stands for
        // the first day of grace too.
        let covered_from = if slot == deadline && first < deadline {
            first
        } else {
            slot
        };
        missing
            .iter()
            .copied()
            .filter(|p| {
                !self
                    .reminded
                    .get(p)
                    .is_some_and(|v| v.iter().any(|t| *t >= covered_from))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn cfg() -> DeadlineConfig {
        DeadlineConfig {
            time_of_day: Some("20:00".into()),
            ..DeadlineConfig::default()
        }
    }

    #[test]
    fn deadline_snaps_to_local_time_of_day() {
        let paris: Tz = "Europe/Paris".parse().unwrap();
        // Opened Monday 2026-11-30 10:00 UTC; +72 h = Thu 10:00 UTC = 11:00
        // Paris; snapped to 20:00 Paris = 19:00 UTC.
        let d = cfg().deadline(t("2026-11-30T10:00:00Z"), Step::PlayerTurn(PowerId::France), paris);
        assert_eq!(d, t("2026-12-03T19:00:00Z"));
    }

    #[test]
    fn deadline_moves_to_an_allowed_weekday() {
        let c = DeadlineConfig {
            weekdays: vec!["sun".into()],
            ..cfg()
        };
        let d = c.deadline(t("2026-11-30T10:00:00Z"), Step::Build, Tz::UTC);
        assert_eq!(d, t("2026-12-06T20:00:00Z"));
        assert_eq!(d.weekday(), Weekday::Sun);
    }

    #[test]
    fn early_processing_waits_for_the_change_of_mind_delay() {
        let c = cfg();
        let clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
        let must = [PowerId::France, PowerId::Britain];
        let mut sub = BTreeMap::new();
        sub.insert(PowerId::France, t("2026-11-30T11:00:00Z"));
        assert!(matches!(
            clock.due(t("2026-11-30T12:00:00Z"), &c, Tz::UTC, &[], &must, &sub),
            Due::Waiting { .. }
        ));
        sub.insert(PowerId::Britain, t("2026-11-30T12:00:00Z"));
        assert_eq!(
            clock.due(t("2026-11-30T12:10:00Z"), &c, Tz::UTC, &[], &must, &sub),
            Due::ChangeOfMind {
                until: t("2026-11-30T12:30:00Z")
            }
        );
        assert_eq!(
            clock.due(t("2026-11-30T12:30:00Z"), &c, Tz::UTC, &[], &must, &sub),
            Due::Early
        );
    }

    // A power that may order but need not (Austria at a
    // Turn Start) cannot keep the phase open by mailing again and again.
    #[test]
    fn only_a_power_that_must_order_restarts_the_delay() {
        let c = cfg();
        let clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
        let must = [PowerId::France];
        let sub = BTreeMap::from([
            (PowerId::France, t("2026-11-30T11:00:00Z")),
            (PowerId::Austria, t("2026-11-30T11:25:00Z")),
        ]);
        assert_eq!(
            clock.due(t("2026-11-30T11:30:00Z"), &c, Tz::UTC, &[], &must, &sub),
            Due::Early
        );
    }

    // The delay never runs past deadline + grace, however
    // late the last submission of a power that must order.
    #[test]
    fn the_delay_never_runs_past_the_end_of_grace() {
        let c = cfg();
        let clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
        let must = [PowerId::France];
        // Deadline 2026-12-02 20:00, grace to 12-03 20:00.
        let sub = BTreeMap::from([(PowerId::France, t("2026-12-03T19:50:00Z"))]);
        assert_eq!(
            clock.due(t("2026-12-03T19:55:00Z"), &c, Tz::UTC, &[], &must, &sub),
            Due::ChangeOfMind {
                until: t("2026-12-03T20:00:00Z")
            }
        );
        assert_eq!(
            clock.due(t("2026-12-03T20:00:00Z"), &c, Tz::UTC, &[], &must, &sub),
            Due::Early
        );
    }

    // READY of every power that must order skips the change-of-mind
    // delay; one missing READY does not; a WAIT holds to the deadline
    // exactly, and only from a power that must order.
    #[test]
    fn ready_and_wait_change_the_early_close_at_their_boundaries() {
        use crate::orders::ast::Readiness::{Ready, Wait};
        let c = cfg();
        let clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
        let must = [PowerId::France, PowerId::Austria];
        let sub = BTreeMap::from([
            (PowerId::France, t("2026-11-30T11:00:00Z")),
            (PowerId::Austria, t("2026-11-30T11:00:00Z")),
        ]);
        let deadline = t("2026-12-02T20:00:00Z");
        let at = |now: &str, said: &[(PowerId, crate::orders::ast::Readiness)]| {
            let now = t(now);
            let said = said.iter().copied().collect();
            with_readiness(
                clock.due(now, &c, Tz::UTC, &[], &must, &sub),
                deadline,
                now,
                &must,
                &said,
            )
        };
        let until = t("2026-11-30T11:30:00Z");
        assert_eq!(at("2026-11-30T11:10:00Z", &[]), Due::ChangeOfMind { until });
        assert_eq!(
            at("2026-11-30T11:10:00Z", &[(PowerId::France, Ready)]),
            Due::ChangeOfMind { until }
        );
        let both = [(PowerId::France, Ready), (PowerId::Austria, Ready)];
        assert_eq!(at("2026-11-30T11:10:00Z", &both), Due::Early);
        let wait = [(PowerId::France, Ready), (PowerId::Austria, Wait)];
        assert_eq!(at("2026-11-30T11:10:00Z", &wait), Due::Waiting { deadline });
        assert_eq!(at("2026-12-02T19:59:59Z", &wait), Due::Waiting { deadline });
        assert_eq!(at("2026-12-02T20:00:00Z", &wait), Due::Early);
        // Prussia need not order: its WAIT holds nothing.
        assert_eq!(at("2026-11-30T11:30:00Z", &[(PowerId::Prussia, Wait)]), Due::Early);
        // Nobody in yet: READY and WAIT change nothing of the wait for orders.
        let none = BTreeMap::new();
        let now = t("2026-11-30T11:30:00Z");
        let due = clock.due(now, &c, Tz::UTC, &[], &must, &none);
        assert_eq!(
            with_readiness(due.clone(), deadline, now, &must, &both.into_iter().collect()),
            due
        );
    }

    // Issue 33: an answer awaited holds the early close until the
    // deadline, not a second longer; no answer awaited, nothing held.
    #[test]
    fn an_awaited_answer_holds_the_early_close_until_the_deadline_only() {
        let c = cfg();
        let clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
        let must = [PowerId::France];
        let sub = BTreeMap::from([(PowerId::France, t("2026-11-30T11:00:00Z"))]);
        let deadline = t("2026-12-02T20:00:00Z");
        assert_eq!(clock.deadline(deadline, &c, Tz::UTC, &[]), deadline);
        let at = |now: &str, awaited: &[PowerId]| {
            let now = t(now);
            hold_for_answers(clock.due(now, &c, Tz::UTC, &[], &must, &sub), deadline, now, awaited)
        };
        let prussia = [PowerId::Prussia];
        assert_eq!(at("2026-11-30T11:30:00Z", &[]), Due::Early);
        assert_eq!(at("2026-11-30T11:30:00Z", &prussia), Due::Waiting { deadline });
        assert_eq!(at("2026-11-30T11:10:00Z", &prussia), Due::Waiting { deadline });
        assert_eq!(at("2026-12-02T19:59:59Z", &prussia), Due::Waiting { deadline });
        assert_eq!(at("2026-12-02T20:00:00Z", &prussia), Due::Early);
        // A power that must order and has not: the answer changes nothing.
        let none = BTreeMap::new();
        let now = t("2026-11-30T11:30:00Z");
        let due = clock.due(now, &c, Tz::UTC, &[], &must, &none);
        assert_eq!(hold_for_answers(due.clone(), deadline, now, &prussia), due);
    }

    #[test]
    fn late_after_grace_names_the_missing() {
        let c = cfg();
        let clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
        let must = [PowerId::France, PowerId::Britain];
        let sub = BTreeMap::from([(PowerId::France, t("2026-11-30T11:00:00Z"))]);
        // Deadline 2026-12-02 20:00, grace to 12-03 20:00.
        assert!(matches!(
            clock.due(t("2026-12-03T08:00:00Z"), &c, Tz::UTC, &[], &must, &sub),
            Due::Grace { .. }
        ));
        assert_eq!(
            clock.due(t("2026-12-03T20:00:00Z"), &c, Tz::UTC, &[], &must, &sub),
            Due::Late {
                missing: vec![PowerId::Britain]
            }
        );
    }

    #[test]
    fn pause_stops_the_clock() {
        let c = cfg();
        let mut clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
        clock.paused_since = Some(t("2026-12-01T10:00:00Z"));
        let must = [PowerId::France];
        assert_eq!(
            clock.due(t("2026-12-09T10:00:00Z"), &c, Tz::UTC, &[], &must, &BTreeMap::new()),
            Due::Paused
        );
        // Resumed after 2 days: the deadline moved 2 days.
        clock.paused_since = None;
        clock.paused_seconds = 2 * 86400;
        assert_eq!(
            clock.deadline(t("2026-12-03T10:00:00Z"), &c, Tz::UTC, &[]),
            t("2026-12-04T20:00:00Z")
        );
    }

    #[test]
    fn an_absence_extends_within_the_limit() {
        let c = DeadlineConfig {
            absence_limit_hours: 48,
            ..cfg()
        };
        let clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
        let short = [Absence {
            power: PowerId::Spain,
            from: t("2026-12-02T00:00:00Z"),
            until: t("2026-12-03T06:00:00Z"),
        }];
        // Deadline 12-02 20:00 falls in the absence: moved to its end,
        // then snapped to 20:00.
        assert_eq!(
            clock.deadline(t("2026-12-01T00:00:00Z"), &c, Tz::UTC, &short),
            t("2026-12-03T20:00:00Z")
        );
        let long = [Absence {
            power: PowerId::Spain,
            from: t("2026-12-01T00:00:00Z"),
            until: t("2026-12-20T00:00:00Z"),
        }];
        assert_eq!(
            clock.deadline(t("2026-12-01T00:00:00Z"), &c, Tz::UTC, &long),
            t("2026-12-04T20:00:00Z")
        );
    }

    #[test]
    fn reminders_before_deadline_then_daily_in_grace() {
        let c = DeadlineConfig {
            grace_hours: 72,
            ..cfg()
        };
        let mut clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
        let missing = [PowerId::Russia];
        assert!(
            clock
                .reminders_due(t("2026-12-01T19:59:00Z"), &c, Tz::UTC, &[], &missing)
                .is_empty()
        );
        assert_eq!(
            clock.reminders_due(t("2026-12-01T20:00:00Z"), &c, Tz::UTC, &[], &missing),
            vec![PowerId::Russia]
        );
        clock.reminded.insert(PowerId::Russia, vec![t("2026-12-01T20:00:00Z")]);
        assert!(
            clock
                .reminders_due(t("2026-12-02T10:00:00Z"), &c, Tz::UTC, &[], &missing)
                .is_empty()
        );
        // In grace: one a day, but the first day's was said before the
        // deadline (issue 37), unless that reminder was never sent.
        assert!(
            clock
                .reminders_due(t("2026-12-02T21:00:00Z"), &c, Tz::UTC, &[], &missing)
                .is_empty()
        );
        let mut unreminded = clock.clone();
        unreminded.reminded.clear();
        assert_eq!(
            unreminded.reminders_due(t("2026-12-02T21:00:00Z"), &c, Tz::UTC, &[], &missing),
            vec![PowerId::Russia]
        );
        assert_eq!(
            clock.reminders_due(t("2026-12-03T20:30:00Z"), &c, Tz::UTC, &[], &missing),
            vec![PowerId::Russia]
        );
        clock
            .reminded
            .get_mut(&PowerId::Russia)
            .unwrap()
            .push(t("2026-12-03T20:30:00Z"));
        assert!(
            clock
                .reminders_due(t("2026-12-04T10:00:00Z"), &c, Tz::UTC, &[], &missing)
                .is_empty()
        );
        assert_eq!(
            clock.reminders_due(t("2026-12-04T20:30:00Z"), &c, Tz::UTC, &[], &missing),
            vec![PowerId::Russia]
        );
    }
}
