//! Lines about the player rather than the game, read from an
//! authenticated message before its orders are checked:
//!
//! ```text
//! ABSENT 2026-12-20 TO 2027-01-03     # deadlines in the window move past it (within the limit)
//! ABSENT NONE                          # forget this power's announced absences
//! SECOND deputy@example.org            # another address that may send this power's orders
//! SECOND NONE
//! ```
//!
//! Dates are days in the game's time zone, both inclusive. The lines are
//! blanked (not removed) so the order checker's line numbers stay right.
//! Nothing from a line END or SIGNOFF, or a signature, on is read.

use crate::ids::PowerId;
use crate::schedule::Absence;
use crate::store::clock::Schedule;
use chrono::{NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

/// What the meta lines of a message asked for, already applied to the
/// schedule; `notes` are told to the player in the acknowledgement.
#[derive(Debug, Default)]
pub struct Meta {
    pub text: String,
    pub notes: Vec<String>,
    pub changed: bool,
}

fn day(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").ok()
}

/// Apply the meta lines of `text` for `power` to `schedule`; returns the
/// text with those lines blanked and what was done.
pub fn apply(text: &str, power: PowerId, tz: Tz, schedule: &mut Schedule) -> Meta {
    let mut meta = Meta::default();
    let mut out = Vec::new();
    // Nothing from a line END or SIGNOFF, or a signature, on is read
    // (orders/README.md, "Ignored"), as for orders and commands.
    let lines: Vec<&str> = text.lines().collect();
    let (read, ignored) = lines.split_at(read_to(&lines));
    for &line in read {
        let words: Vec<&str> = line.split_whitespace().collect();
        let upper: Vec<String> = words.iter().map(|w| w.to_ascii_uppercase()).collect();
        let handled = match upper.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            ["ABSENT", "NONE"] => {
                schedule.absences.retain(|a| a.power != power);
                meta.notes.push("Your announced absences are cancelled.".into());
                true
            }
            ["ABSENT", _, "TO", _] => {
                let (from, to) = (day(words[1]), day(words[3]));
                match (from, to) {
                    (Some(f), Some(t)) if f <= t => {
                        let start = tz.from_local_datetime(&f.and_time(NaiveTime::MIN)).earliest();
                        let end = tz
                            .from_local_datetime(&(t + chrono::Days::new(1)).and_time(NaiveTime::MIN))
                            .earliest();
                        if let (Some(s), Some(e)) = (start, end) {
                            schedule.absences.push(Absence {
                                power,
                                from: s.with_timezone(&Utc),
                                until: e.with_timezone(&Utc),
                            });
                            meta.notes.push(format!(
                                "Absence noted from {f} to {t}: a deadline in that window moves past it, within the moderator's limit."
                            ));
                        }
                    }
                    _ => meta.notes.push(format!(
                        "Not understood: '{}'. Write ABSENT YYYY-MM-DD TO YYYY-MM-DD.",
                        line.trim()
                    )),
                }
                true
            }
            ["SECOND", "NONE"] => {
                schedule.seconds.remove(&power);
                meta.notes.push("Your second is removed.".into());
                true
            }
            ["SECOND", _] => {
                let addr = words[1].trim_matches(|c| c == '<' || c == '>');
                if addr.contains('@') && !addr.contains(char::is_control) {
                    schedule.seconds.insert(power, addr.to_string());
                    meta.notes.push(format!(
                        "{addr} may now send orders for {} (with the password).",
                        power.name()
                    ));
                } else {
                    meta.notes.push(format!("Not an address: '{}'.", words[1]));
                }
                true
            }
            _ => false,
        };
        if handled {
            meta.changed = true;
            out.push("");
        } else {
            out.push(line);
        }
    }
    out.extend(ignored);
    meta.text = out.join("\n");
    meta
}

/// How many of `lines` are read: those before the first line END or
/// SIGNOFF alone, or a signature line (`-- `).
fn read_to(lines: &[&str]) -> usize {
    lines
        .iter()
        .position(|l| {
            let t = l.trim();
            *l == "-- " || t == "--" || t.eq_ignore_ascii_case("END") || t.eq_ignore_ascii_case("SIGNOFF")
        })
        .unwrap_or(lines.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absences_and_seconds_are_recorded_and_blanked() {
        let mut s = Schedule::default();
        let tz: Tz = "Europe/Paris".parse().unwrap();
        let m = apply(
            "POWER Spain\nABSENT 2026-12-20 TO 2026-12-27\nSECOND <deputy@example.org>\nMOVE corps 1 -> Madrid",
            PowerId::Spain,
            tz,
            &mut s,
        );
        assert_eq!(m.text, "POWER Spain\n\n\nMOVE corps 1 -> Madrid");
        assert_eq!(s.absences.len(), 1);
        // Midnight in Paris is 23:00 UTC the day before (winter).
        assert_eq!(s.absences[0].from.to_rfc3339(), "2026-12-19T23:00:00+00:00");
        assert_eq!(s.absences[0].until.to_rfc3339(), "2026-12-27T23:00:00+00:00");
        assert_eq!(
            s.seconds.get(&PowerId::Spain).map(String::as_str),
            Some("deputy@example.org")
        );
        let m = apply("absent none\nsecond none", PowerId::Spain, tz, &mut s);
        assert!(m.changed && s.absences.is_empty() && s.seconds.is_empty());
        let m = apply("ABSENT 2026-12-27 TO 2026-12-20", PowerId::Spain, tz, &mut s);
        assert!(m.notes[0].starts_with("Not understood"), "{:?}", m.notes);
        // Nothing after END or a signature is read (orders/README.md).
        for text in ["END\nSECOND x@example.org", "PASS\n-- \nSECOND x@example.org"] {
            let m = apply(text, PowerId::Spain, tz, &mut s);
            assert!(!m.changed && s.seconds.is_empty() && m.text == text, "{text}: {m:?}");
        }
    }
}
