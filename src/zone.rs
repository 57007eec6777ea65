//! Time zones as players name and read them: an IANA name as written in
//! a `TIMEZONE` line (any case, with a "did you mean" on a misspelling),
//! and the one way every deadline a player reads is written, in their
//! zone with the zone named, and once in UTC. A leaf: the order parser,
//! the schedule's mails and the commands ask it; it reads no clock.

use crate::diagnostic::SuggestIndex;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use std::sync::OnceLock;

/// Every IANA zone chrono-tz knows, with what a player may write for it:
/// its name, and its city alone (`Paris`, `New York`) as a candidate of
/// the suggestions.
struct Zones {
    /// The candidates of the index, in its order, each with its zone.
    zones: Vec<Tz>,
    index: SuggestIndex,
}

fn zones() -> &'static Zones {
    // Built once: some 600 zones, about 1,200 candidates.
    static ZONES: OnceLock<Zones> = OnceLock::new();
    ZONES.get_or_init(|| {
        let mut names: Vec<String> = Vec::new();
        let mut zones = Vec::new();
        for tz in chrono_tz::TZ_VARIANTS {
            names.push(tz.name().to_string());
            zones.push(tz);
            if let Some((_, city)) = tz.name().rsplit_once('/') {
                names.push(city.replace('_', " "));
                zones.push(tz);
            }
        }
        Zones {
            index: SuggestIndex::new(names.iter().map(String::as_str)),
            zones,
        }
    })
}

/// The zone `name` names (an IANA name, in any case: `europe/paris`),
/// or the names close to it, best first (at most three; none when nothing
/// is close).
pub fn parse(name: &str) -> Result<Tz, Vec<&'static str>> {
    let name = name.trim();
    if let Some(tz) = chrono_tz::TZ_VARIANTS
        .iter()
        .find(|tz| tz.name().eq_ignore_ascii_case(name))
    {
        return Ok(*tz);
    }
    let z = zones();
    let mut close: Vec<&'static str> = Vec::new();
    for i in z.index.suggest_ids(&name.replace('_', " ")) {
        let n = z.zones[i].name();
        if !close.contains(&n) {
            close.push(n);
        }
    }
    Err(close)
}

/// What to tell a player whose `TIMEZONE` named no zone: the closest
/// name only (as for a misspelt power).
pub fn unknown(name: &str, close: &[&str]) -> (String, String) {
    let what = format!("no time zone '{name}'");
    let help = match close.first() {
        None => "write an IANA time zone name, e.g. Europe/Paris, America/New_York, Asia/Tokyo or UTC".to_string(),
        Some(best) => format!("did you mean {best}?"),
    };
    (what, help)
}

/// A moment as a player reads it, in `tz` with the zone named and once
/// in UTC: `Tuesday 8 December 2026, 20:00 CET (19:00 UTC)`; the UTC day
/// is said when it is another one; a zone in UTC is said once. Every
/// deadline, grace end and pause a player reads is written by this.
pub fn shown(at: DateTime<Utc>, tz: Tz) -> String {
    let local = at.with_timezone(&tz);
    let abbr = local.format("%Z").to_string();
    // Some zones have no letters for themselves (`+03`): name them.
    let zone = if abbr.chars().all(|c| c.is_ascii_alphabetic()) {
        abbr
    } else {
        format!("{} ({abbr})", tz.name())
    };
    let day = local.format("%A %-d %B %Y, %H:%M");
    if zone == "UTC" {
        return format!("{day} UTC");
    }
    let utc = if at.date_naive() == local.date_naive() {
        at.format("%H:%M UTC").to_string()
    } else {
        at.format("%A %-d %B, %H:%M UTC").to_string()
    };
    format!("{day} {zone} ({utc})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn a_deadline_reads_in_the_zone_named_and_once_in_utc() {
        let paris: Tz = "Europe/Paris".parse().unwrap();
        assert_eq!(
            shown(t("2026-12-08T19:00:00Z"), paris),
            "Tuesday 8 December 2026, 20:00 CET (19:00 UTC)"
        );
        // Summer time, and a day apart from UTC.
        assert_eq!(
            shown(t("2026-07-07T23:30:00Z"), paris),
            "Wednesday 8 July 2026, 01:30 CEST (Tuesday 7 July, 23:30 UTC)"
        );
        assert_eq!(
            shown(t("2026-12-08T19:00:00Z"), Tz::UTC),
            "Tuesday 8 December 2026, 19:00 UTC"
        );
        let istanbul: Tz = "Europe/Istanbul".parse().unwrap();
        assert_eq!(
            shown(t("2026-12-08T19:00:00Z"), istanbul),
            "Tuesday 8 December 2026, 22:00 Europe/Istanbul (+03) (19:00 UTC)"
        );
    }

    #[test]
    fn a_zone_is_read_in_any_case_and_a_misspelling_gets_the_close_names() {
        assert_eq!(parse("europe/PARIS"), Ok(chrono_tz::Europe::Paris));
        assert_eq!(parse(" UTC "), Ok(Tz::UTC));
        assert_eq!(parse("Europe/Pari").unwrap_err().first(), Some(&"Europe/Paris"));
        assert_eq!(parse("Paris").unwrap_err(), vec!["Europe/Paris"]);
        assert_eq!(parse("New York").unwrap_err().first(), Some(&"America/New_York"));
        assert_eq!(parse("Moon/Tranquility_Base").unwrap_err(), Vec::<&str>::new());
        let (what, help) = unknown("Europe/Pari", &["Europe/Paris"]);
        assert_eq!(
            (what.as_str(), help.as_str()),
            ("no time zone 'Europe/Pari'", "did you mean Europe/Paris?")
        );
    }
}
