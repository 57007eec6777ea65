//! Outcomes: what happened and why, for every order and automatic step.
//! Reports render these and never recompute them (STYLE 5).

use crate::ids::PowerId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    pub rule: String,
    /// A stable kind, e.g. `tax`, `order-rejected`, `battle`.
    pub kind: String,
    /// The power it concerns most, if any.
    pub power: Option<PowerId>,
    /// The order this answers (normalised text), if it answers one.
    pub order: Option<String>,
    /// One line: what happened.
    pub summary: String,
    /// Why: table rows, modifiers, standing orders or defaults applied.
    #[serde(default)]
    pub why: Vec<String>,
    #[serde(default)]
    pub dice: Vec<DieRef>,
    /// Gold changes this outcome made, by power.
    #[serde(default)]
    pub gold: BTreeMap<PowerId, i64>,
    /// VP changes this outcome made, by power.
    #[serde(default)]
    pub vp: BTreeMap<PowerId, i64>,
    pub visibility: Visibility,
}

impl Outcome {
    pub fn new(rule: &str, kind: &str, summary: impl Into<String>) -> Outcome {
        Outcome {
            rule: rule.to_string(),
            kind: kind.to_string(),
            power: None,
            order: None,
            summary: summary.into(),
            why: Vec::new(),
            dice: Vec::new(),
            gold: BTreeMap::new(),
            vp: BTreeMap::new(),
            visibility: Visibility::All,
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
    pub fn why(mut self, line: impl Into<String>) -> Outcome {
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
    pub fn only(mut self, powers: Vec<PowerId>) -> Outcome {
        self.visibility = Visibility::Only(powers);
        self
    }
}
