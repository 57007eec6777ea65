//! Outcomes: what happened and why, for every order and automatic step.
//! Reports render these and never recompute them (STYLE 5).

use crate::ids::PowerId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// What an outcome records: a closed list, written into `outcomes.toml`
/// by its kebab-case name (`order-failed`), which is also its `Display`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::VariantArray,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Kind {
    Alliance,
    AllianceBroken,
    AllianceRefused,
    Battle,
    BattleResult,
    BidAssignment,
    Blockade,
    BlockadeRun,
    Build,
    BuildSquadron,
    CapitalOccupied,
    ChitDraw,
    CommanderArrives,
    Cooperation,
    DeclarationCancelled,
    DeficitRepaid,
    Desertion,
    DominanceChanged,
    /// House rule 'draws': the game ends in a draw by every power's vote.
    Draw,
    /// House rule 'draws': a power's vote cast or withdrawn (the voter's eyes only).
    DrawVote,
    EmbargoCancelled,
    EmbargoDeclared,
    EmbargoIncomeLoss,
    EmbargoJoined,
    EmbargoLeft,
    EmbargoMinorPorts,
    EmbargoVpLoss,
    EnforcedPeaceExpired,
    Event,
    Expenses,
    FinalRanking,
    Garrison,
    Gift,
    Hulks,
    Interception,
    KingdomChanged,
    KingdomCreated,
    KingdomEnded,
    KingdomTreasury,
    Loan,
    MinorConquered,
    Move,
    MoveFirst,
    NavalBattle,
    NavalMove,
    NavalTactic,
    NoInterception,
    NoOrders,
    NpcAlliance,
    NpcStatus,
    OrderFailed,
    OrderRejected,
    Peace,
    PeaceRefused,
    ReResolved,
    Reinforcement,
    Siege,
    StandingOrder,
    Surrender,
    Tax,
    TransportLost,
    TurnOrder,
    Victory,
    VpCollection,
    VpPurchase,
    WarDeclared,
    WithdrawGarrison,
}

crate::vocabulary::written_names!(Kind, "The name written in history files and reports.");

/// A section of the book a rule comes from (`4.221`, `12.2.1`): numbers
/// joined by dots. Written into `outcomes.toml` and shown as that text;
/// a history file with anything else in a `rule` does not load.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Section(String);

impl Section {
    /// The section `s`, if it is numbers joined by dots.
    pub fn parse(s: &str) -> Option<Section> {
        let numbers = !s.is_empty()
            && s.split('.')
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        numbers.then(|| Section(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The engine's sections are literals of its code, each cited beside its
/// rule: a malformed one is a bug, and panics where it is written (every
/// rule case runs the code that writes it).
impl From<&str> for Section {
    #[track_caller]
    fn from(s: &str) -> Section {
        match Section::parse(s) {
            Some(sec) => sec,
            None => panic!("'{s}' is not a rule section (numbers joined by dots)"),
        }
    }
}

impl From<&Section> for Section {
    fn from(s: &Section) -> Section {
        s.clone()
    }
}

impl TryFrom<String> for Section {
    type Error = String;
    fn try_from(s: String) -> Result<Section, String> {
        Section::parse(&s).ok_or_else(|| format!("'{s}' is not a rule section (numbers joined by dots)"))
    }
}

impl From<Section> for String {
    fn from(s: Section) -> String {
        s.0
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for Section {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Section {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for Section {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

/// One line of an outcome's explanation. The engine builds it from what
/// it applied (a rule, a house ruling, a modifier, a table row or roll);
/// it is written into `outcomes.toml` and reports as one line of text,
/// rendered by the one `Display` below, so history files written before
/// the lines were typed read back and re-serialise byte for byte.
///
/// Two lines are equal when they read the same: a line read back from a
/// history file is parsed into the variant that renders it (or `Text`),
/// and `verify --replay` compares replayed lines with recorded ones.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Why {
    /// `4.221: …`: what a rule of the book did.
    Rule { section: Section, text: String },
    /// `house: …`: a ruling the book leaves open (DESIGN's house rules).
    House(String),
    /// `+1 cavalry superiority`: a modifier to a roll.
    Modifier { value: i64, what: String },
    /// `table events, row 3–4: …`: the row of a scenario table read.
    TableRow {
        table: String,
        from: i64,
        to: i64,
        text: String,
    },
    /// `Rebellion Table: 4 -> Tyrol`: a roll on a named table and its result.
    TableRoll { table: String, roll: u32, result: String },
    /// `round 2, attacker: d6 4 +1 nationality … with 8 ships: 1 disabled,
    /// morale loss 0.8`: one side's fire in a round of a naval battle of
    /// the EiA option (12.2.6.1.5).
    NavalFire { round: u32, side: String, text: String },
    /// `after round 2: attacker has 7 ships fit, …`: a side of a naval
    /// battle of the EiA option after a round (12.2.6.1.6).
    NavalAfterRound { round: u32, side: String, text: String },
    /// `britain squadron 7 has no ship fit for combat left: the counter
    /// leaves the map`: a squadron whose every ship is disabled (2.51).
    NoShipLeft { squadron: String },
    /// Any other line.
    Text(String),
}

impl Why {
    /// `section: text`, citing the rule applied.
    #[track_caller]
    pub fn rule(section: impl Into<Section>, text: impl Into<String>) -> Why {
        Why::Rule {
            section: section.into(),
            text: text.into(),
        }
    }

    /// `house: text`.
    pub fn house(text: impl Into<String>) -> Why {
        Why::House(text.into())
    }

    /// `+value what`.
    pub fn modifier(value: impl Into<i64>, what: impl Into<String>) -> Why {
        Why::Modifier {
            value: value.into(),
            what: what.into(),
        }
    }

    /// `table T, row from–to: text`.
    pub fn table_row(
        table: impl Into<String>,
        from: impl Into<i64>,
        to: impl Into<i64>,
        text: impl Into<String>,
    ) -> Why {
        Why::TableRow {
            table: table.into(),
            from: from.into(),
            to: to.into(),
            text: text.into(),
        }
    }

    /// `T: roll -> result`.
    pub fn table_roll(table: impl Into<String>, roll: u32, result: impl Into<String>) -> Why {
        Why::TableRoll {
            table: table.into(),
            roll,
            result: result.into(),
        }
    }

    /// Whether the rendered line contains `pat` (what tests and the rule
    /// cases' `why` expectations look for).
    pub fn contains(&self, pat: &str) -> bool {
        self.to_string().contains(pat)
    }

    /// The typed line a rendered one came from, when its text is one of
    /// the typed shapes and renders back to exactly the same text;
    /// otherwise `Text`.
    pub fn parse(line: &str) -> Why {
        let typed = Why::parse_typed(line);
        match typed {
            Some(w) if w.to_string() == line => w,
            _ => Why::Text(line.to_string()),
        }
    }

    fn parse_typed(line: &str) -> Option<Why> {
        if let Some(text) = line.strip_prefix("house: ") {
            return Some(Why::house(text));
        }
        if let Some(squadron) = line.strip_suffix(NO_SHIP_LEFT) {
            return Some(Why::NoShipLeft {
                squadron: squadron.to_string(),
            });
        }
        if let Some(rest) = line.strip_prefix("after round ")
            && let Some((round, rest)) = rest.split_once(": ")
            && let Ok(round) = round.parse()
            && let Some((side, text)) = rest.split_once(' ')
        {
            return Some(Why::NavalAfterRound {
                round,
                side: side.to_string(),
                text: text.to_string(),
            });
        }
        if let Some(rest) = line.strip_prefix("round ")
            && let Some((round, rest)) = rest.split_once(", ")
            && let Ok(round) = round.parse()
            && let Some((side, text)) = rest.split_once(": ")
        {
            return Some(Why::NavalFire {
                round,
                side: side.to_string(),
                text: text.to_string(),
            });
        }
        if let Some(rest) = line.strip_prefix("table ")
            && let Some((table, rest)) = rest.split_once(", row ")
            && let Some((rows, text)) = rest.split_once(": ")
            && let Some((from, to)) = rows.split_once('–')
        {
            return Some(Why::table_row(
                table,
                from.parse::<i64>().ok()?,
                to.parse::<i64>().ok()?,
                text,
            ));
        }
        if let Some((head, text)) = line.split_once(": ") {
            if let Some(section) = Section::parse(head) {
                return Some(Why::Rule {
                    section,
                    text: text.to_string(),
                });
            }
            if let Some(table) = head.strip_suffix(" Table")
                && let Some((roll, result)) = text.split_once(" -> ")
                && let Ok(roll) = roll.parse()
            {
                return Some(Why::table_roll(format!("{table} Table"), roll, result));
            }
        }
        let (value, what) = line.split_once(' ')?;
        if value.starts_with(['+', '-']) {
            return Some(Why::modifier(value.parse::<i64>().ok()?, what));
        }
        None
    }
}

/// The tail of [`Why::NoShipLeft`].
const NO_SHIP_LEFT: &str = " has no ship fit for combat left: the counter leaves the map";

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Rule { section, text } => write!(f, "{section}: {text}"),
            Why::House(text) => write!(f, "house: {text}"),
            Why::Modifier { value, what } => write!(f, "{value:+} {what}"),
            Why::TableRow { table, from, to, text } => write!(f, "table {table}, row {from}–{to}: {text}"),
            Why::TableRoll { table, roll, result } => write!(f, "{table}: {roll} -> {result}"),
            Why::NavalFire { round, side, text } => write!(f, "round {round}, {side}: {text}"),
            Why::NavalAfterRound { round, side, text } => write!(f, "after round {round}: {side} {text}"),
            Why::NoShipLeft { squadron } => write!(f, "{squadron}{NO_SHIP_LEFT}"),
            Why::Text(text) => f.write_str(text),
        }
    }
}

impl Why {
    /// The line without its prose: the variant with its sections, numbers,
    /// tables, sides and results, and every free sentence empty. Two lines
    /// with the same data say the same thing, however worded (what
    /// `verify --replay` compares across a change of the engine's wording).
    pub fn data(&self) -> Why {
        let none = String::new;
        match self {
            Why::Rule { section, .. } => Why::Rule {
                section: section.clone(),
                text: none(),
            },
            Why::House(_) => Why::House(none()),
            Why::Modifier { value, .. } => Why::Modifier {
                value: *value,
                what: none(),
            },
            Why::TableRow { table, from, to, .. } => Why::TableRow {
                table: table.clone(),
                from: *from,
                to: *to,
                text: none(),
            },
            Why::TableRoll { .. } | Why::NoShipLeft { .. } => self.clone(),
            Why::NavalFire { round, side, .. } => Why::NavalFire {
                round: *round,
                side: side.clone(),
                text: none(),
            },
            Why::NavalAfterRound { round, side, .. } => Why::NavalAfterRound {
                round: *round,
                side: side.clone(),
                text: none(),
            },
            Why::Text(_) => Why::Text(none()),
        }
    }
}

impl PartialEq for Why {
    fn eq(&self, other: &Why) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for Why {}

/// A line given as text (or read from a history file) is parsed into the
/// variant that renders it; the engine builds typed lines with [`Why::rule`]
/// and the other constructors.
impl From<String> for Why {
    fn from(line: String) -> Why {
        Why::parse(&line)
    }
}

impl From<&str> for Why {
    fn from(line: &str) -> Why {
        Why::parse(line)
    }
}

impl From<Why> for String {
    fn from(w: Why) -> String {
        w.to_string()
    }
}

/// Who may read an outcome in their report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "to", content = "powers")]
pub enum Visibility {
    /// Every power.
    All,
    /// Only these powers (and the moderator).
    Only(Vec<PowerId>),
}

impl Visibility {
    pub fn sees(&self, p: PowerId) -> bool {
        match self {
            Visibility::All => true,
            Visibility::Only(v) => v.contains(&p),
        }
    }
}

/// A die used by an outcome: its purpose and result (see the dice log).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DieRef {
    pub purpose: String,
    pub result: u32,
}

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Rule section, e.g. `4.21`.
    pub rule: Section,
    /// What happened, e.g. `tax`, `order-rejected`, `battle`.
    pub kind: Kind,
    /// The power it concerns most, if any.
    pub power: Option<PowerId>,
    /// The order this answers (normalised text), if it answers one.
    pub order: Option<String>,
    /// One line: what happened.
    pub summary: String,
    /// Why: table rows, modifiers, standing orders or defaults applied.
    #[serde(default)]
    pub why: Vec<Why>,
    #[serde(default)]
    pub dice: Vec<DieRef>,
    /// Gold changes this outcome made, by power.
    #[serde(default)]
    pub gold: BTreeMap<PowerId, i64>,
    /// VP changes this outcome made, by power.
    #[serde(default)]
    pub vp: BTreeMap<PowerId, i64>,
    pub visibility: Visibility,
    /// Where it happened (a province or sea zone id), for the map
    /// pictures' battle and siege marks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// Where a VP change came from, by the outcome that made it: what the
/// balance report sums over a campaign and a report's standings show for
/// one phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VpSource {
    /// 4.23: political values of controlled provinces.
    Land,
    /// 4.25: Gold turned into VP.
    Purchase,
    /// 5.6: battle results.
    Battles,
    /// 4.256, 4.257: the Continental System (Britain's losses).
    Embargo,
    /// Everything else: events, surrender terms, diplomacy, captures, bid.
    Other,
}

impl VpSource {
    pub const ALL: [VpSource; 5] = [
        VpSource::Land,
        VpSource::Purchase,
        VpSource::Battles,
        VpSource::Embargo,
        VpSource::Other,
    ];

    /// The word a report uses.
    pub fn name(self) -> &'static str {
        match self {
            VpSource::Land => "land",
            VpSource::Purchase => "purchase",
            VpSource::Battles => "battles",
            VpSource::Embargo => "embargo",
            VpSource::Other => "other",
        }
    }
}

impl Outcome {
    /// The outcome without its wording: its kind, section, power, order,
    /// the data of its why lines ([`Why::data`]), dice, Gold, VP,
    /// visibility and place, with the summary sentence empty.
    /// Where the VP changes of this outcome came from.
    pub fn vp_source(&self) -> VpSource {
        let rule = self.rule.as_str();
        if self.kind == Kind::VpCollection {
            VpSource::Land
        } else if self.kind == Kind::VpPurchase {
            VpSource::Purchase
        } else if rule.starts_with("5.6") || self.kind.as_str().contains("battle") {
            VpSource::Battles
        } else if self.kind.as_str().starts_with("embargo") || rule == "4.256" || rule == "4.257" {
            VpSource::Embargo
        } else {
            VpSource::Other
        }
    }

    pub fn data(&self) -> Outcome {
        Outcome {
            summary: String::new(),
            why: self.why.iter().map(Why::data).collect(),
            ..self.clone()
        }
    }

    #[track_caller]
    pub fn new(rule: impl Into<Section>, kind: Kind, summary: impl Into<String>) -> Outcome {
        Outcome {
            rule: rule.into(),
            kind,
            power: None,
            order: None,
            summary: summary.into(),
            why: Vec::new(),
            dice: Vec::new(),
            gold: BTreeMap::new(),
            vp: BTreeMap::new(),
            visibility: Visibility::All,
            at: None,
        }
    }
    pub fn power(mut self, p: PowerId) -> Outcome {
        self.power = Some(p);
        self
    }
    pub fn order(mut self, text: &str) -> Outcome {
        self.order = Some(text.to_string());
        self
    }
    pub fn why(mut self, line: impl Into<Why>) -> Outcome {
        self.why.push(line.into());
        self
    }
    pub fn die(mut self, purpose: &str, result: u32) -> Outcome {
        self.dice.push(DieRef {
            purpose: purpose.to_string(),
            result,
        });
        self
    }
    pub fn gold(mut self, p: PowerId, delta: i64) -> Outcome {
        *self.gold.entry(p).or_default() += delta;
        self
    }
    pub fn vp(mut self, p: PowerId, delta: i64) -> Outcome {
        *self.vp.entry(p).or_default() += delta;
        self
    }
    pub fn at(mut self, place: &str) -> Outcome {
        self.at = Some(place.to_string());
        self
    }
    pub fn only(mut self, powers: Vec<PowerId>) -> Outcome {
        self.visibility = Visibility::Only(powers);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section is numbers joined by dots; an outcome writes it as that
    /// text, and a history file with anything else in `rule` is refused.
    #[test]
    fn a_section_is_checked_and_written_as_its_text() {
        for ok in ["5", "4.221", "12.2.9.1"] {
            assert_eq!(Section::parse(ok).map(|s| s.to_string()).as_deref(), Some(ok));
        }
        for bad in ["", "5.", ".5", "5..4", "2.12e", "house", "5.4 "] {
            assert_eq!(Section::parse(bad), None, "{bad:?}");
        }
        let o = Outcome::new("4.221", Kind::Tax, "x");
        let json = serde_json::to_value(&o).unwrap();
        assert_eq!(json["rule"], "4.221");
        let mut bad = json.clone();
        bad["rule"] = "4.22x".into();
        assert!(serde_json::from_value::<Outcome>(bad).is_err());
        assert_eq!(serde_json::from_value::<Outcome>(json).unwrap(), o);
    }

    /// Each typed line renders as the text history files already hold,
    /// and reads back as the same variant; a line of no typed shape (or
    /// one that would not render back identically) stays text.
    #[test]
    fn a_why_line_is_typed_rendered_once_and_read_back_as_written() {
        let typed = [
            (
                Why::rule("4.221", "3 Gold cannot be paid: deficit"),
                "4.221: 3 Gold cannot be paid: deficit",
            ),
            (Why::house("its chit goes last"), "house: its chit goes last"),
            (Why::modifier(-1, "fortress"), "-1 fortress"),
            (Why::modifier(2, "artillery"), "+2 artillery"),
            (
                Why::table_row("spain", 3, 4, "Guerrillas"),
                "table spain, row 3–4: Guerrillas",
            ),
            (
                Why::table_roll("Rebellion Table", 5, "Tyrol"),
                "Rebellion Table: 5 -> Tyrol",
            ),
        ];
        for (why, text) in typed {
            assert_eq!(why.to_string(), text);
            let back = Why::parse(text);
            assert_eq!(std::mem::discriminant(&back), std::mem::discriminant(&why), "{text}");
            assert_eq!(back, why);
        }
        for text in [
            "-0 nothing",
            "table economy: 3 Gold per VP",
            "2.5x: not a section",
            "attacker losses: 1",
        ] {
            assert!(matches!(Why::parse(text), Why::Text(ref t) if t == text), "{text}");
        }
        let mut o = Outcome::new("5.4", Kind::Battle, "x").why(Why::modifier(1, "cavalry"));
        o = o.why("a free line");
        let toml = toml::to_string(&o).unwrap();
        assert!(toml.contains(r#"why = ["+1 cavalry", "a free line"]"#), "{toml}");
        assert_eq!(toml::from_str::<Outcome>(&toml).unwrap(), o);
    }

    #[test]
    #[should_panic(expected = "is not a rule section")]
    fn a_malformed_section_in_the_code_panics_where_it_is_written() {
        let _ = Outcome::new("4.2a", Kind::Tax, "x");
    }

    /// History files written before kinds were typed hold the same names:
    /// the Display, the serde name and `as_str` are one string.
    #[test]
    fn a_kind_is_written_and_read_by_its_history_name() {
        crate::vocabulary::assert_names_round_trip::<Kind>();
        assert_eq!(Kind::OrderFailed.to_string(), "order-failed");
        assert_eq!(Kind::ReResolved.to_string(), "re-resolved");
        assert!(serde_json::from_str::<Kind>("\"x\"").is_err());
    }
}
