//! Deadlines at their edges: each phase kind's own hours, a time zone
//! whose local date is not the UTC date, daylight saving, a pause in
//! force, absences at their limits. `schedule` is pure, so every case
//! passes the time in.

use chrono::{DateTime, Datelike, Utc, Weekday};
use chrono_tz::Tz;
use empereur::ids::{PowerId, Step};
use empereur::schedule::{Absence, DeadlineConfig, Due, PhaseClock, parse_weekday};
use std::collections::BTreeMap;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn tz(name: &str) -> Tz {
    name.parse().unwrap()
}

/// Every phase kind with its own number of hours, no snapping.
fn distinct_hours() -> DeadlineConfig {
    DeadlineConfig {
        bid_hours: 10,
        turn_start_hours: 20,
        player_turn_hours: 30,
        build_hours: 40,
        winter_hours: 50,
        ..DeadlineConfig::default()
    }
}

#[test]
fn each_phase_kind_has_its_own_hours() {
    let c = distinct_hours();
    let opened = t("2026-11-30T10:00:00Z");
    let want = [
        (Step::Bid, "2026-11-30T20:00:00Z"),
        (Step::TurnStart, "2026-12-01T06:00:00Z"),
        (Step::PlayerTurn(PowerId::Russia), "2026-12-01T16:00:00Z"),
        (Step::Build, "2026-12-02T02:00:00Z"),
        (Step::Winter, "2026-12-02T12:00:00Z"),
    ];
    for (step, at) in want {
        assert_eq!(c.deadline(opened, step, Tz::UTC), t(at), "{step:?}");
        assert_eq!(
            PhaseClock::open(opened, step, &c, Tz::UTC).base_deadline,
            t(at),
            "{step:?}"
        );
    }
}

#[test]
fn the_winterphase_gets_more_time_than_a_build_phase_by_default() {
    // The house defaults: Build 48 h, Winterphase 96 h.
    let c = DeadlineConfig::default();
    let opened = t("2026-11-30T10:00:00Z");
    assert_eq!(c.deadline(opened, Step::Build, Tz::UTC), t("2026-12-02T10:00:00Z"));
    assert_eq!(c.deadline(opened, Step::Winter, Tz::UTC), t("2026-12-04T10:00:00Z"));
}

#[test]
fn time_of_day_snaps_on_the_local_date_west_of_utc() {
    // Raw deadline Thu 2026-12-03 06:00 UTC is Wed 2 Dec 22:00 in Los
    // Angeles; 23:00 local on that same Wednesday is still ahead.
    let la = tz("America/Los_Angeles");
    let c = DeadlineConfig {
        player_turn_hours: 68,
        time_of_day: Some("23:00".into()),
        ..DeadlineConfig::default()
    };
    let d = c.deadline(t("2026-11-30T10:00:00Z"), Step::PlayerTurn(PowerId::France), la);
    assert_eq!(d, t("2026-12-03T07:00:00Z"));
    assert_eq!(d.with_timezone(&la).day(), 2);
}

#[test]
fn time_of_day_snaps_on_the_local_date_east_of_utc() {
    // Raw deadline Tue 2026-12-01 12:00 UTC is Wed 2 Dec 01:00 in
    // Auckland (UTC+13); 09:00 local that Wednesday is Tue 20:00 UTC.
    let nz = tz("Pacific/Auckland");
    let c = DeadlineConfig {
        build_hours: 26,
        time_of_day: Some("09:00".into()),
        ..DeadlineConfig::default()
    };
    let d = c.deadline(t("2026-11-30T10:00:00Z"), Step::Build, nz);
    assert_eq!(d, t("2026-12-01T20:00:00Z"));
}

#[test]
fn allowed_weekdays_are_local_weekdays() {
    // Wed 2 Dec 22:00 in Los Angeles is Thursday in UTC; a Wednesday-only
    // game keeps the deadline where it is.
    let la = tz("America/Los_Angeles");
    let c = DeadlineConfig {
        player_turn_hours: 68,
        weekdays: vec!["Wednesday".into()],
        ..DeadlineConfig::default()
    };
    let d = c.deadline(t("2026-11-30T10:00:00Z"), Step::PlayerTurn(PowerId::France), la);
    assert_eq!(d, t("2026-12-03T06:00:00Z"));
    assert_eq!(d.with_timezone(&la).weekday(), Weekday::Wed);
    // A Thursday-only game in Los Angeles moves it to local midnight.
    let thu = DeadlineConfig {
        weekdays: vec!["thu".into()],
        ..c
    };
    let d = thu.deadline(t("2026-11-30T10:00:00Z"), Step::PlayerTurn(PowerId::France), la);
    assert_eq!(d, t("2026-12-03T08:00:00Z"));
}

#[test]
fn a_time_of_day_skipped_by_daylight_saving_moves_an_hour_on() {
    // Paris skips 02:00-03:00 on Sunday 28 March 2027: 02:30 becomes
    // 03:30 CEST = 01:30 UTC.
    let c = DeadlineConfig {
        bid_hours: 1,
        time_of_day: Some("02:30".into()),
        ..DeadlineConfig::default()
    };
    let d = c.deadline(t("2027-03-27T23:00:00Z"), Step::Bid, tz("Europe/Paris"));
    assert_eq!(d, t("2027-03-28T01:30:00Z"));
}

#[test]
fn a_deadline_already_at_the_time_of_day_stays() {
    let c = DeadlineConfig {
        build_hours: 24,
        time_of_day: Some("10:00".into()),
        ..DeadlineConfig::default()
    };
    assert_eq!(
        c.deadline(t("2026-11-30T10:00:00Z"), Step::Build, Tz::UTC),
        t("2026-12-01T10:00:00Z")
    );
}

#[test]
fn a_pause_in_force_pushes_the_deadline_and_holds_reminders() {
    let c = DeadlineConfig::default();
    let mut clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
    assert_eq!(clock.base_deadline, t("2026-12-02T10:00:00Z"));
    clock.paused_since = Some(t("2026-12-01T10:00:00Z"));
    // Paused for 3 days so far (and 1 day in an earlier pause).
    clock.paused_seconds = 86_400;
    let now = t("2026-12-04T10:00:00Z");
    assert_eq!(clock.deadline(now, &c, Tz::UTC, &[]), t("2026-12-06T10:00:00Z"));
    assert!(
        clock
            .reminders_due(now, &c, Tz::UTC, &[], &[PowerId::Prussia])
            .is_empty()
    );
    // Even with everyone in, a paused game does not resolve early.
    let sub = BTreeMap::from([(PowerId::Prussia, t("2026-11-30T11:00:00Z"))]);
    assert_eq!(clock.due(now, &c, Tz::UTC, &[], &[PowerId::Prussia], &sub), Due::Paused);
    // A pause that began in the future of `now` (a clock set back) adds nothing.
    clock.paused_since = Some(t("2026-12-05T10:00:00Z"));
    assert_eq!(clock.deadline(now, &c, Tz::UTC, &[]), t("2026-12-03T10:00:00Z"));
}

#[test]
fn resumed_the_clock_runs_with_the_time_paused_added() {
    let c = DeadlineConfig::default();
    let mut clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
    clock.paused_seconds = 3600;
    clock.extended_hours = 5;
    let must = [PowerId::Spain];
    let none = BTreeMap::new();
    // Deadline 12-02 10:00 + 5 h + 1 h = 16:00; grace 24 h.
    assert_eq!(
        clock.due(t("2026-12-02T15:59:00Z"), &c, Tz::UTC, &[], &must, &none),
        Due::Waiting {
            deadline: t("2026-12-02T16:00:00Z")
        }
    );
    assert_eq!(
        clock.due(t("2026-12-02T16:00:00Z"), &c, Tz::UTC, &[], &must, &none),
        Due::Grace {
            ends: t("2026-12-03T16:00:00Z")
        }
    );
    assert_eq!(
        clock.due(t("2026-12-03T16:00:00Z"), &c, Tz::UTC, &[], &must, &none),
        Due::Late {
            missing: vec![PowerId::Spain]
        }
    );
}

#[test]
fn absences_count_only_when_they_cover_the_deadline() {
    let c = DeadlineConfig {
        absence_limit_hours: 100,
        ..DeadlineConfig::default()
    };
    let clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
    let now = t("2026-12-01T00:00:00Z");
    let away = |from: &str, until: &str| Absence {
        power: PowerId::Ottoman,
        from: t(from),
        until: t(until),
    };
    // Starting exactly at the deadline: covers it.
    assert_eq!(
        clock.deadline(
            now,
            &c,
            Tz::UTC,
            &[away("2026-12-02T10:00:00Z", "2026-12-03T00:00:00Z")]
        ),
        t("2026-12-03T00:00:00Z")
    );
    // Ending exactly at the deadline: the player is back.
    assert_eq!(
        clock.deadline(
            now,
            &c,
            Tz::UTC,
            &[away("2026-12-01T00:00:00Z", "2026-12-02T10:00:00Z")]
        ),
        t("2026-12-02T10:00:00Z")
    );
    // Entirely after the deadline: nothing.
    assert_eq!(
        clock.deadline(
            now,
            &c,
            Tz::UTC,
            &[away("2026-12-05T00:00:00Z", "2026-12-09T00:00:00Z")]
        ),
        t("2026-12-02T10:00:00Z")
    );
    // Longer than the limit: 100 h at most.
    assert_eq!(
        clock.deadline(
            now,
            &c,
            Tz::UTC,
            &[away("2026-12-01T00:00:00Z", "2026-12-30T00:00:00Z")]
        ),
        t("2026-12-06T14:00:00Z")
    );
}

#[test]
fn the_early_resolution_counts_from_the_last_submission() {
    let c = DeadlineConfig::default();
    let clock = PhaseClock::open(t("2026-11-30T10:00:00Z"), Step::Build, &c, Tz::UTC);
    let must = [PowerId::France, PowerId::Austria];
    let sub = BTreeMap::from([
        (PowerId::France, t("2026-11-30T12:00:00Z")),
        (PowerId::Austria, t("2026-11-30T11:00:00Z")),
    ]);
    assert_eq!(
        clock.due(t("2026-11-30T12:29:00Z"), &c, Tz::UTC, &[], &must, &sub),
        Due::ChangeOfMind {
            until: t("2026-11-30T12:30:00Z")
        }
    );
    // Nobody must order (all NPCs): due once the delay after opening passed.
    assert_eq!(
        clock.due(t("2026-11-30T10:30:00Z"), &c, Tz::UTC, &[], &[], &BTreeMap::new()),
        Due::Early
    );
}

#[test]
fn weekday_names_and_bad_configuration_are_named() {
    assert_eq!(parse_weekday("Tuesday"), Some(Weekday::Tue));
    assert_eq!(parse_weekday(" SAT "), Some(Weekday::Sat));
    assert_eq!(parse_weekday("mo"), None);
    assert_eq!(parse_weekday("may"), None);
    let bad_time = DeadlineConfig {
        time_of_day: Some("25:00".into()),
        ..DeadlineConfig::default()
    };
    assert_eq!(
        bad_time.check().unwrap_err(),
        "deadlines.time_of_day '25:00' is not HH:MM"
    );
    let bad_day = DeadlineConfig {
        weekdays: vec!["mon".into(), "someday".into()],
        ..DeadlineConfig::default()
    };
    assert_eq!(
        bad_day.check().unwrap_err(),
        "deadlines.weekdays: 'someday' is not a weekday (mon … sun)"
    );
    let good = DeadlineConfig {
        time_of_day: Some("19:30".into()),
        weekdays: vec!["fri".into()],
        ..DeadlineConfig::default()
    };
    assert_eq!(good.check(), Ok(()));
}
