//! The derivation of `docs/dice.md`: commitment, key, roll. Every byte
//! fed to SHA-256 / HMAC-SHA-256 is length-prefixed (4-byte big-endian
//! length, then the bytes), so no two different inputs share an encoding.

use super::beacon::{BeaconRound, BeaconValue};
use super::{Dice, DiceError};
use crate::ids::PowerId;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

type HmacSha256 = Hmac<Sha256>;

/// Length of a phase seed in bytes.
pub const SEED_LEN: usize = 32;
/// Domain tag of a commitment.
pub const COMMIT_TAG: &str = "empereur/dice/commit/v1";
/// Domain tag of the key derivation.
pub const KEY_TAG: &str = "empereur/dice/key/v1";
/// Domain tag of a link of a game's seed chain.
pub const CHAIN_TAG: &str = "empereur/dice/chain/v1";

/// A phase's secret seed.
pub type Seed = [u8; SEED_LEN];
/// The dice key of a resolved phase.
pub type Key = [u8; 32];
/// Each power's entropy line (absent = empty).
pub type Entropy = BTreeMap<PowerId, String>;

fn lp(out: &mut Vec<u8>, bytes: &[u8]) {
    // Lengths above 4 GiB cannot occur: purposes, ids and entropy lines
    // are short text (an order file is read whole into memory first).
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(bytes);
}

/// Lower-case hex of bytes.
pub fn to_hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// Parse 64 hex digits into 32 bytes.
pub fn parse_hex32(text: &str) -> Result<[u8; 32], String> {
    let t = text.trim();
    let v = hex::decode(t).map_err(|e| format!("'{t}' is not hex: {e}"))?;
    v.try_into()
        .map_err(|v: Vec<u8>| format!("expected 32 bytes (64 hex digits), got {}", v.len()))
}

/// Commitment = SHA-256(lp(COMMIT_TAG) ‖ lp(game) ‖ lp(phase) ‖ lp(seed)), hex.
pub fn commitment(game: &str, phase: &str, seed: &Seed) -> String {
    commitment_with(game, phase, seed, None)
}

/// As [`commitment`]; with a beacon, `‖ lp(network name) ‖ lp(round as
/// decimal digits)` follow the seed, so the round is fixed when the
/// commitment is mailed (docs/dice.md 1).
pub fn commitment_with(game: &str, phase: &str, seed: &Seed, beacon: Option<&BeaconRound>) -> String {
    let mut msg = Vec::with_capacity(160);
    lp(&mut msg, COMMIT_TAG.as_bytes());
    lp(&mut msg, game.as_bytes());
    lp(&mut msg, phase.as_bytes());
    lp(&mut msg, seed);
    if let Some(b) = beacon {
        lp(&mut msg, b.network.as_bytes());
        lp(&mut msg, b.round.to_string().as_bytes());
    }
    to_hex(&Sha256::digest(&msg))
}

/// The link before `seed` in the seed chain of `game` (docs/dice.md 1a):
/// SHA-256(lp(CHAIN_TAG) ‖ lp(game) ‖ lp(seed)). Revealing a seed shows
/// the one before it is its hash, and tells nothing of the one after.
pub fn chain_link(game: &str, seed: &Seed) -> Seed {
    let mut msg = Vec::with_capacity(96);
    lp(&mut msg, CHAIN_TAG.as_bytes());
    lp(&mut msg, game.as_bytes());
    lp(&mut msg, seed);
    Sha256::digest(&msg).into()
}

/// Seed `index` of the chain of `length` links whose last link is `top`:
/// [`chain_link`] applied `length - index` times to `top`. Index 0 is the
/// anchor published in the genesis entry; phases use 1, 2, …; `None`
/// past the end.
pub fn chain_seed(game: &str, top: &Seed, length: u32, index: u32) -> Option<Seed> {
    let mut s = *top;
    for _ in 0..length.checked_sub(index)? {
        s = chain_link(game, &s);
    }
    Some(s)
}

/// Key = HMAC-SHA-256(seed, lp(KEY_TAG) ‖ for each power in the fixed order
/// france, britain, russia, austria, prussia, spain, ottoman:
/// lp(power id) ‖ lp(entropy, or empty)).
pub fn derive_key(seed: &Seed, entropy: &Entropy) -> Key {
    derive_key_with(seed, entropy, None)
}

/// As [`derive_key`]; with a beacon, `‖ lp(network name) ‖ lp(round as
/// decimal digits) ‖ lp(signature, raw bytes)` follow the seven powers
/// (docs/dice.md 2a).
pub fn derive_key_with(seed: &Seed, entropy: &Entropy, beacon: Option<&BeaconValue>) -> Key {
    let mut msg = Vec::with_capacity(320);
    lp(&mut msg, KEY_TAG.as_bytes());
    for p in PowerId::ALL {
        lp(&mut msg, p.id().as_bytes());
        lp(&mut msg, entropy.get(&p).map(String::as_bytes).unwrap_or_default());
    }
    if let Some(b) = beacon {
        lp(&mut msg, b.network.as_bytes());
        lp(&mut msg, b.round.to_string().as_bytes());
        lp(&mut msg, &b.signature);
    }
    let mut mac = HmacSha256::new_from_slice(seed).expect("HMAC takes a key of any length");
    mac.update(&msg);
    mac.finalize().into_bytes().into()
}

/// A power's entropy (docs/dice.md 2): the receipt of its stored
/// submission (lower-case hex SHA-256 of the file's bytes), then, when it
/// typed an ENTROPY line with text, one space and that text as stored.
/// The receipt makes every accepted mail count without the player doing
/// anything, and the moderator cannot choose it.
pub fn power_entropy(receipt: &str, typed: Option<&str>) -> String {
    match typed {
        Some(t) if !t.is_empty() => format!("{receipt} {t}"),
        _ => receipt.to_string(),
    }
}

/// The rejection bound for a die of `sides` faces: a 32-bit word `w` is
/// used when `w < reject_limit(sides)`, the largest multiple of `sides`
/// not above 2^32. `sides` must be at least 1.
pub fn reject_limit(sides: u32) -> u64 {
    let span = 1u64 << 32;
    span - span % u64::from(sides)
}

/// Whether word `w` is used for a die of `sides` faces.
pub fn accepts(w: u32, sides: u32) -> bool {
    u64::from(w) < reject_limit(sides)
}

/// The face (1..=sides) an accepted word shows.
pub fn face(w: u32, sides: u32) -> u32 {
    w % sides + 1
}

/// Block `i` of a roll: HMAC-SHA-256(key, lp(purpose) ‖ u32be(i)).
pub fn roll_block(mac: &Hmac<Sha256>, purpose: &str, i: u32) -> [u8; 32] {
    let mut m = mac.clone();
    m.update(&(purpose.len() as u32).to_be_bytes());
    m.update(purpose.as_bytes());
    m.update(&i.to_be_bytes());
    m.finalize().into_bytes().into()
}

pub(super) fn keyed(key: &Key) -> Hmac<Sha256> {
    HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length")
}

/// Roll with a keyed MAC: the first accepted word of blocks 0, 1, 2, …,
/// each block read as eight big-endian 32-bit words in order.
pub(super) fn roll_with(mac: &Hmac<Sha256>, purpose: &str, sides: u32) -> u32 {
    let mut i = 0u32;
    loop {
        let block = roll_block(mac, purpose, i);
        for chunk in block.chunks_exact(4) {
            let w = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if accepts(w, sides) {
                return face(w, sides);
            }
        }
        // Each word is rejected with probability below 1/2, so eight in a
        // row are rare and 2^32 blocks never run out in practice.
        i = i.wrapping_add(1);
    }
}

/// One roll of `sides` faces for `purpose` under `key` (sides ≥ 1).
pub fn derive_roll(key: &Key, purpose: &str, sides: u32) -> u32 {
    roll_with(&keyed(key), purpose, sides.max(1))
}

/// 1–100 from two d10 read as tens and units (`<purpose>/tens`,
/// `<purpose>/units`); a die showing 10 reads 0 (2.42), and 0 0 reads 100.
pub fn d100(dice: &mut dyn Dice, purpose: &str) -> Result<u32, DiceError> {
    let tens = dice.roll(&format!("{purpose}/tens"), 10)? % 10;
    let units = dice.roll(&format!("{purpose}/units"), 10)? % 10;
    Ok(match tens * 10 + units {
        0 => 100,
        n => n,
    })
}
