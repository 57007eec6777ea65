//! Scripted dice for the rule cases and tests: a value per purpose. It
//! never touches OS randomness; the committed source lives in `dice`, the
//! seeded dice of simulated campaigns in `autoplay`. Compiled for the
//! crate's own tests and, through the `testing` feature, for the
//! integration tests and benches; never part of the shipped engine.

use crate::dice::{Dice, DiceError, Roll, RollSource};
use std::collections::{BTreeMap, BTreeSet};

/// Scripted dice: a value per purpose; purposes not scripted fall back to
/// `default` if set, else the roll fails with `Exhausted`.
#[derive(Clone, Debug, Default)]
pub struct ScriptedDice {
    pub values: BTreeMap<String, u32>,
    pub default: Option<u32>,
    log: Vec<Roll>,
    asked: BTreeSet<String>,
}

impl ScriptedDice {
    pub fn new(values: BTreeMap<String, u32>, default: Option<u32>) -> ScriptedDice {
        ScriptedDice {
            values,
            default,
            log: Vec::new(),
            asked: BTreeSet::new(),
        }
    }
}

impl Dice for ScriptedDice {
    fn roll(&mut self, purpose: &str, sides: u32) -> Result<u32, DiceError> {
        if !self.asked.insert(purpose.to_string()) {
            return Err(DiceError::Repeated {
                purpose: purpose.to_string(),
            });
        }
        let value = self
            .values
            .get(purpose)
            .copied()
            .or(self.default)
            .ok_or_else(|| DiceError::Exhausted {
                purpose: purpose.to_string(),
            })?;
        if value == 0 || value > sides {
            return Err(DiceError::OutOfRange {
                purpose: purpose.to_string(),
                sides,
                value,
            });
        }
        self.log.push(Roll {
            purpose: purpose.to_string(),
            sides,
            result: value,
            source: RollSource::Scripted,
        });
        Ok(value)
    }
    fn log(&self) -> &[Roll] {
        &self.log
    }
}

/// The fuzz target's property (`fuzz/fuzz_targets/check.rs`), shared with
/// the test that runs it over a corpus on stable (`tests/it/fuzz_corpus.rs`):
/// any bytes, as lossy text, through `orders::check` for France must not
/// panic, and every diagnostic must point inside the input and render.
pub fn check_any_bytes(scenario: &crate::scenario::Scenario, state: &crate::state::State, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let checked = crate::orders::check(&text, scenario, state, Some(crate::ids::PowerId::France));
    let lines: Vec<&str> = text.lines().collect();
    for d in &checked.diagnostics {
        let s = d.span;
        if lines.is_empty() {
            assert_eq!((s.line, s.col, s.len), (1, 1, 0));
            continue;
        }
        let line = lines.get(s.line.wrapping_sub(1)).expect("span line inside the input");
        assert!(s.col >= 1 && s.col - 1 + s.len <= line.chars().count().max(1), "{d:?}");
        let _ = d.render("fuzz", &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripted_dice_refuse_repeats_and_range() {
        let mut d = ScriptedDice::new(BTreeMap::from([("a".to_string(), 11)]), Some(3));
        assert!(matches!(d.roll("a", 10), Err(DiceError::OutOfRange { .. })));
        assert_eq!(d.roll("b", 10), Ok(3));
        assert!(matches!(d.roll("b", 10), Err(DiceError::Repeated { .. })));
    }
}
