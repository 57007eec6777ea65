//! The dice sources: committed, scripted, manual, replay.

use super::protocol::{Entropy, Key, Seed, derive_key, keyed, roll_with};
use super::{Dice, DiceError, Roll, RollSource};
use hmac::Hmac;
use sha2::Sha256;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

fn check_sides(purpose: &str, sides: u32) -> Result<(), DiceError> {
    if sides == 0 {
        return Err(DiceError::NoFaces {
            purpose: purpose.to_string(),
        });
    }
    Ok(())
}

/// Committed dice (docs/dice.md): every roll derived from the phase key
/// and its purpose. Asking twice for one purpose is an error, so no event
/// can be re-rolled until it pleases.
#[derive(Clone)]
pub struct Committed {
    key: Key,
    mac: Hmac<Sha256>,
    seen: BTreeSet<String>,
    log: Vec<Roll>,
}

impl Committed {
    /// From the phase seed and every power's entropy.
    pub fn new(seed: &Seed, entropy: &Entropy) -> Committed {
        Committed::from_key(derive_key(seed, entropy))
    }
    pub fn from_key(key: Key) -> Committed {
        Committed {
            mac: keyed(&key),
            key,
            seen: BTreeSet::new(),
            log: Vec::new(),
        }
    }
    pub fn key(&self) -> &Key {
        &self.key
    }
    /// What the roll for `purpose` is, without logging it (verify).
    pub fn peek(&self, purpose: &str, sides: u32) -> u32 {
        roll_with(&self.mac, purpose, sides.max(1))
    }
}

impl Dice for Committed {
    fn roll(&mut self, purpose: &str, sides: u32) -> Result<u32, DiceError> {
        check_sides(purpose, sides)?;
        if !self.seen.insert(purpose.to_string()) {
            return Err(DiceError::Repeated {
                purpose: purpose.to_string(),
            });
        }
        let result = roll_with(&self.mac, purpose, sides);
        self.log.push(Roll {
            purpose: purpose.to_string(),
            sides,
            result,
            source: RollSource::Committed,
        });
        Ok(result)
    }
    fn log(&self) -> &[Roll] {
        &self.log
    }
}

/// A test double: values by purpose (each purpose a queue) or in the
/// order asked. A missing value is [`DiceError::Exhausted`]; values left
/// over make [`Dice::finish`] fail, so a test notices a roll that did
/// not happen.
#[derive(Clone, Debug, Default)]
pub struct Scripted {
    by_purpose: BTreeMap<String, VecDeque<u32>>,
    in_order: VecDeque<u32>,
    log: Vec<Roll>,
}

impl Scripted {
    /// Values handed out in the order asked, whatever the purpose.
    pub fn in_order(values: impl IntoIterator<Item = u32>) -> Scripted {
        Scripted {
            in_order: values.into_iter().collect(),
            ..Scripted::default()
        }
    }
    /// Values by purpose; a purpose listed twice answers twice, in order.
    pub fn by_purpose<S: Into<String>>(values: impl IntoIterator<Item = (S, u32)>) -> Scripted {
        let mut s = Scripted::default();
        for (p, v) in values {
            s.by_purpose.entry(p.into()).or_default().push_back(v);
        }
        s
    }
}

impl Dice for Scripted {
    fn roll(&mut self, purpose: &str, sides: u32) -> Result<u32, DiceError> {
        check_sides(purpose, sides)?;
        let v = match self.by_purpose.get_mut(purpose).and_then(VecDeque::pop_front) {
            Some(v) => v,
            None => self.in_order.pop_front().ok_or_else(|| DiceError::Exhausted {
                purpose: purpose.to_string(),
            })?,
        };
        if v == 0 || v > sides {
            return Err(DiceError::OutOfRange {
                purpose: purpose.to_string(),
                sides,
                value: v,
            });
        }
        self.log.push(Roll {
            purpose: purpose.to_string(),
            sides,
            result: v,
            source: RollSource::Scripted,
        });
        Ok(v)
    }
    fn log(&self) -> &[Roll] {
        &self.log
    }
    fn finish(&self) -> Result<(), DiceError> {
        let mut values: Vec<String> = Vec::new();
        for (p, q) in &self.by_purpose {
            values.extend(q.iter().map(|v| format!("{v} for '{p}'")));
        }
        values.extend(self.in_order.iter().map(u32::to_string));
        if values.is_empty() {
            Ok(())
        } else {
            Err(DiceError::Unused { values })
        }
    }
}

/// Physical dice typed in by the moderator (`--manual-dice 7,3,10`),
/// used in the order the engine asks for rolls and logged as manual. On
/// a d10 a 0 reads as 10 (2.42).
#[derive(Clone, Debug, Default)]
pub struct Manual {
    values: VecDeque<u32>,
    seen: BTreeSet<String>,
    log: Vec<Roll>,
}

impl Manual {
    pub fn new(values: impl IntoIterator<Item = u32>) -> Manual {
        Manual {
            values: values.into_iter().collect(),
            ..Manual::default()
        }
    }
    /// Parse `7,3,10` (commas or spaces).
    pub fn parse(list: &str) -> Result<Manual, String> {
        let mut values = Vec::new();
        for (i, item) in list.split([',', ' ']).filter(|s| !s.trim().is_empty()).enumerate() {
            let v: u32 = item
                .trim()
                .parse()
                .map_err(|_| format!("manual die {} ('{}') is not a number", i + 1, item.trim()))?;
            values.push(v);
        }
        Ok(Manual::new(values))
    }
    pub fn remaining(&self) -> usize {
        self.values.len()
    }
}

impl Dice for Manual {
    fn roll(&mut self, purpose: &str, sides: u32) -> Result<u32, DiceError> {
        check_sides(purpose, sides)?;
        if !self.seen.insert(purpose.to_string()) {
            return Err(DiceError::Repeated {
                purpose: purpose.to_string(),
            });
        }
        let raw = self.values.pop_front().ok_or_else(|| DiceError::Exhausted {
            purpose: purpose.to_string(),
        })?;
        // 2.42: a d10 shows 0 for 10.
        let v = if raw == 0 && sides == 10 { 10 } else { raw };
        if v == 0 || v > sides {
            return Err(DiceError::OutOfRange {
                purpose: purpose.to_string(),
                sides,
                value: raw,
            });
        }
        self.log.push(Roll {
            purpose: purpose.to_string(),
            sides,
            result: v,
            source: RollSource::Manual,
        });
        Ok(v)
    }
    fn log(&self) -> &[Roll] {
        &self.log
    }
    fn finish(&self) -> Result<(), DiceError> {
        if self.values.is_empty() {
            Ok(())
        } else {
            Err(DiceError::Unused {
                values: self.values.iter().map(u32::to_string).collect(),
            })
        }
    }
}

/// The rolls of a recorded dice log, answered by purpose (verify
/// `--replay`); the log it writes keeps each roll's recorded source.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    recorded: BTreeMap<String, Roll>,
    log: Vec<Roll>,
}

impl Replay {
    pub fn new(rolls: &[Roll]) -> Replay {
        Replay {
            recorded: rolls.iter().map(|r| (r.purpose.clone(), r.clone())).collect(),
            log: Vec::new(),
        }
    }
}

impl Dice for Replay {
    fn roll(&mut self, purpose: &str, sides: u32) -> Result<u32, DiceError> {
        check_sides(purpose, sides)?;
        if self.log.iter().any(|r| r.purpose == purpose) {
            return Err(DiceError::Repeated {
                purpose: purpose.to_string(),
            });
        }
        let r = self.recorded.remove(purpose).ok_or_else(|| DiceError::Exhausted {
            purpose: purpose.to_string(),
        })?;
        if r.sides != sides {
            return Err(DiceError::SidesDiffer {
                purpose: purpose.to_string(),
                recorded: r.sides,
                asked: sides,
            });
        }
        let v = r.result;
        self.log.push(r);
        Ok(v)
    }
    fn log(&self) -> &[Roll] {
        &self.log
    }
    fn finish(&self) -> Result<(), DiceError> {
        if self.recorded.is_empty() {
            Ok(())
        } else {
            Err(DiceError::Unused {
                values: self.recorded.keys().map(|p| format!("'{p}'")).collect(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{accepts, d100, derive_roll, face, reject_limit};
    use super::*;
    use crate::ids::PowerId;

    fn seed(b: u8) -> Seed {
        [b; 32]
    }

    #[test]
    fn rejection_sampling_is_exactly_uniform_on_the_boundary() {
        for sides in [1u32, 2, 3, 6, 7, 10, 12, 20, 100, 1000, 65_537, u32::MAX] {
            let limit = reject_limit(sides);
            // The accepted words are exactly 0..limit, a multiple of sides:
            // each face is shown by limit / sides words, no more, no less.
            assert_eq!(limit % u64::from(sides), 0, "d{sides}");
            assert!(
                (1u64 << 32) - limit < u64::from(sides),
                "d{sides}: the bound is the largest multiple"
            );
            let last = (limit - 1) as u32;
            assert!(accepts(last, sides));
            assert_eq!(face(last, sides), sides, "the last accepted word shows the top face");
            assert_eq!(face(0, sides), 1);
            if limit < 1 << 32 {
                assert!(!accepts(limit as u32, sides), "d{sides}: the bound itself is rejected");
                assert!(!accepts(u32::MAX, sides));
            } else {
                assert!(accepts(u32::MAX, sides), "a power of two rejects nothing");
            }
        }
        // d10: 2^32 = 429496729 * 10 + 6, so the six words from 4294967290 up are rejected.
        assert_eq!(reject_limit(10), 4_294_967_290);
        assert!(accepts(4_294_967_289, 10) && !accepts(4_294_967_290, 10));
        // d6: 2^32 mod 6 = 4.
        assert_eq!(reject_limit(6), 4_294_967_292);
    }

    #[test]
    fn faces_cycle_evenly_over_a_window_of_words() {
        // Over any `sides * k` consecutive accepted words, each face occurs k times.
        for sides in [6u32, 10] {
            let mut count = vec![0u32; sides as usize + 1];
            let start = (reject_limit(sides) - u64::from(sides) * 1000) as u32;
            for w in start..start + sides * 1000 {
                assert!(accepts(w, sides));
                count[face(w, sides) as usize] += 1;
            }
            assert!(count[1..].iter().all(|c| *c == 1000), "d{sides}: {count:?}");
        }
    }

    #[test]
    fn chi_square_of_many_committed_rolls_is_plausible() {
        let mut d = Committed::new(&seed(7), &Entropy::new());
        let n = 100_000u32;
        for sides in [6u32, 10] {
            let mut count = vec![0f64; sides as usize];
            for i in 0..n {
                let r = d.roll(&format!("chi/{sides}/{i}"), sides).unwrap();
                count[(r - 1) as usize] += 1.0;
            }
            let e = f64::from(n) / f64::from(sides);
            let chi: f64 = count.iter().map(|c| (c - e) * (c - e) / e).sum();
            // 99.9th percentile of chi-square: 20.5 (5 dof), 27.9 (9 dof).
            let bound = if sides == 6 { 20.5 } else { 27.9 };
            assert!(chi < bound, "d{sides}: chi-square {chi} over {count:?}");
        }
    }

    #[test]
    fn same_inputs_same_rolls_and_order_does_not_matter() {
        let mut e = Entropy::new();
        e.insert(PowerId::Austria, "for the Emperor".into());
        let purposes = ["a/1", "b/2", "c/3", "land-battle/vienna/1/round-2/defender"];
        let mut fwd = Committed::new(&seed(1), &e);
        let mut back = Committed::new(&seed(1), &e);
        let a: Vec<u32> = purposes.iter().map(|p| fwd.roll(p, 10).unwrap()).collect();
        let mut b: Vec<u32> = purposes.iter().rev().map(|p| back.roll(p, 10).unwrap()).collect();
        b.reverse();
        assert_eq!(a, b);
        assert_eq!(a[0], derive_roll(fwd.key(), "a/1", 10));
    }

    #[test]
    fn a_different_seed_or_entropy_changes_the_rolls() {
        let purposes: Vec<String> = (0..64).map(|i| format!("p/{i}")).collect();
        let rolls = |s: Seed, e: &Entropy| {
            let mut d = Committed::new(&s, e);
            purposes.iter().map(|p| d.roll(p, 10).unwrap()).collect::<Vec<_>>()
        };
        let none = Entropy::new();
        let mut one = Entropy::new();
        one.insert(PowerId::Ottoman, "x".into());
        let mut moved = Entropy::new();
        moved.insert(PowerId::Spain, "x".into());
        let base = rolls(seed(1), &none);
        assert_ne!(base, rolls(seed(2), &none));
        assert_ne!(base, rolls(seed(1), &one));
        assert_ne!(
            rolls(seed(1), &one),
            rolls(seed(1), &moved),
            "entropy is bound to its power"
        );
        // An empty entropy line is the same as none.
        let mut empty = Entropy::new();
        empty.insert(PowerId::France, String::new());
        assert_eq!(base, rolls(seed(1), &empty));
    }

    #[test]
    fn a_purpose_is_rolled_once() {
        let mut d = Committed::new(&seed(1), &Entropy::new());
        d.roll("x", 10).unwrap();
        assert_eq!(d.roll("x", 10), Err(DiceError::Repeated { purpose: "x".into() }));
        assert!(matches!(d.roll("y", 0), Err(DiceError::NoFaces { .. })));
        assert_eq!(d.log().len(), 1);
    }

    #[test]
    fn scripted_fails_on_missing_and_leftover_values() {
        let mut s = Scripted::by_purpose([("a", 3), ("b", 10)]);
        assert_eq!(s.roll("b", 10), Ok(10));
        assert_eq!(s.roll("c", 10), Err(DiceError::Exhausted { purpose: "c".into() }));
        assert_eq!(
            s.finish(),
            Err(DiceError::Unused {
                values: vec!["3 for 'a'".into()]
            })
        );
        let mut o = Scripted::in_order([4, 7]);
        assert_eq!(o.roll("x", 6), Ok(4));
        assert!(matches!(o.roll("y", 6), Err(DiceError::OutOfRange { value: 7, .. })));
        assert_eq!(o.log()[0].source, RollSource::Scripted);
    }

    #[test]
    fn manual_dice_read_zero_as_ten_and_are_logged_as_manual() {
        let mut m = Manual::parse("7, 0,3").unwrap();
        assert_eq!(m.roll("a", 10), Ok(7));
        assert_eq!(m.roll("b", 10), Ok(10));
        assert!(matches!(m.roll("c", 2), Err(DiceError::OutOfRange { value: 3, .. })));
        assert!(m.log().iter().all(|r| r.source == RollSource::Manual));
        assert!(Manual::parse("7,x").unwrap_err().contains("manual die 2 ('x')"));
        let left = Manual::new([1, 2]);
        assert!(matches!(left.finish(), Err(DiceError::Unused { .. })));
    }

    #[test]
    fn d100_reads_tens_and_units_with_ten_as_zero() {
        let cases = [(10, 10, 100), (10, 1, 1), (1, 10, 10), (3, 7, 37), (9, 9, 99)];
        for (t, u, want) in cases {
            let mut s = Scripted::by_purpose([("x/tens", t), ("x/units", u)]);
            assert_eq!(d100(&mut s, "x").unwrap(), want, "{t} {u}");
            s.finish().unwrap();
        }
    }

    #[test]
    fn replay_hands_back_recorded_rolls_and_notices_gaps() {
        let mut c = Committed::new(&seed(3), &Entropy::new());
        c.roll("a", 10).unwrap();
        c.roll("b", 6).unwrap();
        let mut r = Replay::new(c.log());
        assert_eq!(r.roll("b", 6).unwrap(), c.log()[1].result);
        assert!(matches!(r.roll("a", 6), Err(DiceError::SidesDiffer { .. })));
        assert!(matches!(r.roll("z", 6), Err(DiceError::Exhausted { .. })));
        let r2 = Replay::new(c.log());
        assert!(matches!(r2.finish(), Err(DiceError::Unused { .. })));
    }
}
