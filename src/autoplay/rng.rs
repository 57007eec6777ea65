//! The seeded generator of autoplayed orders and the seeded dice of
//! simulated campaigns (`balance`, the campaign tests, the benches).
//! Deterministic: nothing comes from the OS, so a seed replays a campaign.

use crate::dice::{Dice, DiceError, Roll, RollSource};
use std::collections::BTreeSet;

/// A small deterministic PRNG (splitmix64), for seeded tests and autoplay.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `1..=n` (n > 0); the tiny modulo bias is irrelevant here.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n.max(1))) as u32 + 1
    }
    /// Uniform in `0..n` (n > 0): an index into a list of `n` choices.
    pub fn index(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Seeded dice: each purpose gets a value derived from the seed and the
/// purpose text, so the engine's order of asking does not matter.
#[derive(Clone, Debug)]
pub struct SeededDice {
    seed: u64,
    log: Vec<Roll>,
    asked: BTreeSet<String>,
}

impl SeededDice {
    pub fn new(seed: u64) -> SeededDice {
        SeededDice {
            seed,
            log: Vec::new(),
            asked: BTreeSet::new(),
        }
    }
}

impl Dice for SeededDice {
    fn roll(&mut self, purpose: &str, sides: u32) -> Result<u32, DiceError> {
        if !self.asked.insert(purpose.to_string()) {
            return Err(DiceError::Repeated {
                purpose: purpose.to_string(),
            });
        }
        // FNV-1a of the purpose, mixed with the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in purpose.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let result = Rng::new(h ^ self.seed).below(sides);
        self.log.push(Roll {
            purpose: purpose.to_string(),
            sides,
            result,
            source: RollSource::Scripted,
        });
        Ok(result)
    }
    fn log(&self) -> &[Roll] {
        &self.log
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn seeded_dice_depend_on_purpose_not_order() {
        let mut a = SeededDice::new(7);
        let mut b = SeededDice::new(7);
        let x = a.roll("x", 10).unwrap();
        let y = a.roll("y", 10).unwrap();
        assert_eq!(b.roll("y", 10).unwrap(), y);
        assert_eq!(b.roll("x", 10).unwrap(), x);
        let faces: BTreeSet<u32> = (0..200).map(|i| a.roll(&format!("p{i}"), 10).unwrap()).collect();
        assert_eq!(faces, (1..=10).collect());
    }
}
