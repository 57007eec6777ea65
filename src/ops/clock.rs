//! The clock of the adapters: the real time, or `EMPEREUR_NOW` (RFC 3339)
//! so tests and a moderator's dry runs can drive deadlines without waiting.
#![allow(clippy::disallowed_methods)] // adapter: owns the clock

use anyhow::{Result, anyhow};
use chrono::{DateTime, Utc};

pub fn now() -> Result<DateTime<Utc>> {
    match std::env::var("EMPEREUR_NOW") {
        Ok(s) if !s.trim().is_empty() => DateTime::parse_from_rfc3339(s.trim())
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| anyhow!("EMPEREUR_NOW '{s}' is not an RFC 3339 time: {e}")),
        _ => Ok(Utc::now()),
    }
}

/// A timestamp for the journal.
pub fn stamp(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
