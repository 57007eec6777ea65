//! Identifiers shared by every module: the seven major powers, nations
//! (major or minor), seasons and phase ids.
//!
//! Power ids are exactly `france britain russia austria prussia spain
//! ottoman` everywhere (files, JSON, orders); names and aliases resolve to
//! them through [`PowerId::parse`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// One of the seven major powers, in the order of prominence (1.1, 3.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PowerId {
    France,
    Britain,
    Russia,
    Austria,
    Prussia,
    Spain,
    Ottoman,
}

impl PowerId {
    /// 3.0: the order in which players take the powers.
    pub const ALL: [PowerId; 7] = [
        PowerId::France,
        PowerId::Britain,
        PowerId::Russia,
        PowerId::Austria,
        PowerId::Prussia,
        PowerId::Spain,
        PowerId::Ottoman,
    ];

    pub fn id(self) -> &'static str {
        match self {
            PowerId::France => "france",
            PowerId::Britain => "britain",
            PowerId::Russia => "russia",
            PowerId::Austria => "austria",
            PowerId::Prussia => "prussia",
            PowerId::Spain => "spain",
            PowerId::Ottoman => "ottoman",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PowerId::France => "France",
            PowerId::Britain => "Great Britain",
            PowerId::Russia => "Russia",
            PowerId::Austria => "Austria",
            PowerId::Prussia => "Prussia",
            PowerId::Spain => "Spain",
            PowerId::Ottoman => "Ottoman Empire",
        }
    }

    pub fn adjective(self) -> &'static str {
        match self {
            PowerId::France => "French",
            PowerId::Britain => "British",
            PowerId::Russia => "Russian",
            PowerId::Austria => "Austrian",
            PowerId::Prussia => "Prussian",
            PowerId::Spain => "Spanish",
            PowerId::Ottoman => "Ottoman",
        }
    }

    /// Every spelling a player may use for this power (lowercase).
    pub fn spellings(self) -> &'static [&'static str] {
        match self {
            PowerId::France => &["france", "french", "fr", "fra"],
            PowerId::Britain => &[
                "britain",
                "great britain",
                "british",
                "england",
                "english",
                "gb",
                "uk",
                "br",
            ],
            PowerId::Russia => &["russia", "russian", "ru", "rus"],
            PowerId::Austria => &["austria", "austrian", "au", "aus"],
            PowerId::Prussia => &["prussia", "prussian", "pr", "pru"],
            PowerId::Spain => &["spain", "spanish", "sp", "spa"],
            PowerId::Ottoman => &[
                "ottoman",
                "ottoman empire",
                "ottomans",
                "turkey",
                "turkish",
                "turks",
                "ot",
                "ott",
            ],
        }
    }

    /// Resolve a name, adjective or abbreviation, case-insensitively.
    pub fn parse(text: &str) -> Option<PowerId> {
        let t = text.trim().to_ascii_lowercase();
        PowerId::ALL.into_iter().find(|p| p.spellings().iter().any(|s| *s == t))
    }
}

impl fmt::Display for PowerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for PowerId {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PowerId::parse(s).ok_or_else(|| {
            format!("unknown power '{s}' (expected one of france, britain, russia, austria, prussia, spain, ottoman)")
        })
    }
}

/// A nation that owns units: a major power or a minor power (by its
/// scenario id, e.g. `portugal`, `naples`, `bavaria`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Nation {
    Major(PowerId),
    Minor(String),
}

impl Nation {
    pub fn id(&self) -> &str {
        match self {
            Nation::Major(p) => p.id(),
            Nation::Minor(m) => m,
        }
    }
    pub fn major(&self) -> Option<PowerId> {
        match self {
            Nation::Major(p) => Some(*p),
            Nation::Minor(_) => None,
        }
    }
}

impl From<PowerId> for Nation {
    fn from(p: PowerId) -> Self {
        Nation::Major(p)
    }
}

impl fmt::Display for Nation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Nation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        if let Some(p) = PowerId::ALL.into_iter().find(|p| p.id() == t) {
            return Ok(Nation::Major(p));
        }
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            return Err(format!("'{s}' is not a nation id"));
        }
        Ok(Nation::Minor(t))
    }
}

impl Serialize for Nation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Nation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The four seasons of a game year (1.2). Winter comes first in a year.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Season {
    Winter,
    Spring,
    Summer,
    Fall,
}

impl Season {
    pub fn id(self) -> &'static str {
        match self {
            Season::Winter => "winter",
            Season::Spring => "spring",
            Season::Summer => "summer",
            Season::Fall => "fall",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Season::Winter => "Winterphase",
            Season::Spring => "Spring",
            Season::Summer => "Summer",
            Season::Fall => "Fall",
        }
    }
    pub fn parse(s: &str) -> Option<Season> {
        match s.trim().to_ascii_lowercase().as_str() {
            "winter" | "winterphase" => Some(Season::Winter),
            "spring" => Some(Season::Spring),
            "summer" => Some(Season::Summer),
            "fall" | "autumn" => Some(Season::Fall),
            _ => None,
        }
    }
    /// The next season, and whether the year advances (1.2).
    pub fn next(self) -> (Season, bool) {
        match self {
            Season::Winter => (Season::Spring, false),
            Season::Spring => (Season::Summer, false),
            Season::Summer => (Season::Fall, false),
            Season::Fall => (Season::Winter, true),
        }
    }
}

/// A point on the calendar: year and season (1.2, 3.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Turn {
    pub year: u16,
    pub season: Season,
}

impl Turn {
    pub fn next(self) -> Turn {
        let (season, roll) = self.season.next();
        Turn {
            year: if roll { self.year + 1 } else { self.year },
            season,
        }
    }
    /// Parse `1807-spring`.
    pub fn parse(s: &str) -> Option<Turn> {
        let (y, se) = s.trim().split_once('-')?;
        Some(Turn {
            year: y.parse().ok()?,
            season: Season::parse(se)?,
        })
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.year, self.season.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_parse_from_names_and_aliases() {
        assert_eq!(PowerId::parse("Great Britain"), Some(PowerId::Britain));
        assert_eq!(PowerId::parse(" TURKEY "), Some(PowerId::Ottoman));
        assert_eq!(PowerId::parse("Bavaria"), None);
    }

    #[test]
    fn nation_round_trips_as_a_string() {
        let n: Nation = "portugal".parse().unwrap();
        assert_eq!(n, Nation::Minor("portugal".into()));
        assert_eq!("france".parse::<Nation>().unwrap(), Nation::Major(PowerId::France));
        assert!("Not A Nation!".parse::<Nation>().is_err());
    }

    #[test]
    fn the_calendar_rolls_over_after_fall() {
        let t = Turn {
            year: 1805,
            season: Season::Fall,
        };
        assert_eq!(t.next().to_string(), "1806-winter");
        assert_eq!(Turn::parse("1807-spring").unwrap().next().to_string(), "1807-summer");
    }
}

/// The step of a season that a phase is (3.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// 3.1: the optional country bid, before Fall 1805.
    Bid,
    /// 4.6: military cooperation and the order of Player Turns.
    TurnStart,
    /// A Player Turn (4.7, 5.1–5.7) of a Player Country or a Controlled NPC.
    PlayerTurn(PowerId),
    /// 6.0: the Mutual Build Phase.
    Build,
    /// 4.0: the whole Winterphase (economy, diplomacy, NPC alliances).
    Winter,
}

/// A phase id, a stable string such as `1805-fall-turn-start`,
/// `1805-fall-france`, `1805-fall-build`, `1806-winter` or `1805-bid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PhaseId {
    pub turn: Turn,
    pub step: Step,
}

impl fmt::Display for PhaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.step {
            Step::Bid => write!(f, "{}-bid", self.turn.year),
            Step::Winter => write!(f, "{}-winter", self.turn.year),
            Step::TurnStart => write!(f, "{}-turn-start", self.turn),
            Step::PlayerTurn(p) => write!(f, "{}-{}", self.turn, p.id()),
            Step::Build => write!(f, "{}-build", self.turn),
        }
    }
}

impl FromStr for PhaseId {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("'{s}' is not a phase id (e.g. 1805-fall-france, 1806-winter)");
        let t = s.trim().to_ascii_lowercase();
        let (year, rest) = t.split_once('-').ok_or_else(bad)?;
        let year: u16 = year.parse().map_err(|_| bad())?;
        match rest {
            "bid" => {
                return Ok(PhaseId {
                    turn: Turn {
                        year,
                        season: Season::Fall,
                    },
                    step: Step::Bid,
                });
            }
            "winter" => {
                return Ok(PhaseId {
                    turn: Turn {
                        year,
                        season: Season::Winter,
                    },
                    step: Step::Winter,
                });
            }
            _ => {}
        }
        let (season, step) = rest.split_once('-').ok_or_else(bad)?;
        let season = Season::parse(season).filter(|s| *s != Season::Winter).ok_or_else(bad)?;
        let step = match step {
            "turn-start" => Step::TurnStart,
            "build" => Step::Build,
            other => Step::PlayerTurn(PowerId::ALL.into_iter().find(|p| p.id() == other).ok_or_else(bad)?),
        };
        Ok(PhaseId {
            turn: Turn { year, season },
            step,
        })
    }
}

impl Serialize for PhaseId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PhaseId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod phase_tests {
    use super::*;

    #[test]
    fn phase_ids_round_trip() {
        for id in [
            "1805-fall-turn-start",
            "1805-fall-france",
            "1805-fall-build",
            "1806-winter",
            "1805-bid",
            "1810-summer-ottoman",
        ] {
            assert_eq!(id.parse::<PhaseId>().unwrap().to_string(), id);
        }
        assert!("1806-winter-france".parse::<PhaseId>().is_err());
        assert!("1805-fall-bavaria".parse::<PhaseId>().is_err());
    }
}
