//! The optional public beacon (docs/dice.md 2a): a drand round that is
//! published only after the deadline, so nobody, the moderator included,
//! knows the dice before the orders are locked.
//!
//! Pure: the round's signature comes in from outside (`ops::beacon`
//! fetches it); this module names the networks, picks the round, checks
//! the BLS signature offline and encodes what the commitment and the key
//! fold in.

use drand_verify::{G2PubkeyRfc, Pubkey};

/// A drand network the dice can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Network {
    /// The name in `game.toml` (`[dice] beacon = "drand-quicknet"`) and in
    /// every record (entry, lock, commitment).
    pub name: &'static str,
    /// The chain hash: the network's id, part of its HTTP paths.
    pub chain_hash: &'static str,
    /// The group public key (hex of the compressed G2 point).
    pub public_key: &'static str,
    /// Unix time of round 1.
    pub genesis: i64,
    /// Seconds between rounds.
    pub period: i64,
    /// drand's name of the signature scheme (informative).
    pub scheme: &'static str,
}

/// drand's "quicknet" (League of Entropy), as published in its `/info`
/// document (`GET <relay>/52db9ba7…e971/info`: `public_key`, `period` 3,
/// `genesis_time` 1692803367, `scheme` `bls-unchained-g1-rfc9380`); the
/// same public key is the one of the `drand-verify` crate's quicknet test.
pub const QUICKNET: Network = Network {
    name: "drand-quicknet",
    chain_hash: "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    public_key: "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
    genesis: 1_692_803_367,
    period: 3,
    scheme: "bls-unchained-g1-rfc9380",
};

/// Every network the dice can use (those the verifying crate supports and
/// whose parameters are recorded here).
pub const NETWORKS: &[Network] = &[QUICKNET];

/// The network called `name`.
pub fn network(name: &str) -> Option<&'static Network> {
    NETWORKS.iter().find(|n| n.name == name)
}

impl Network {
    /// Unix time at which round `round` (≥ 1) is published:
    /// genesis + period × (round − 1).
    pub fn round_time(&self, round: u64) -> i64 {
        let r = i64::try_from(round.max(1)).unwrap_or(i64::MAX);
        self.genesis.saturating_add(self.period.saturating_mul(r - 1))
    }

    /// The first round published strictly after Unix time `t` (round 1
    /// for any time before genesis).
    pub fn round_after(&self, t: i64) -> u64 {
        if t < self.genesis {
            return 1;
        }
        // Round k is published at genesis + period·(k−1); the rounds at or
        // before t are 1 ..= (t − genesis) / period + 1.
        u64::try_from((t - self.genesis) / self.period + 2).unwrap_or(u64::MAX)
    }

    /// Check a round's signature (raw bytes) against the network's public
    /// key, offline.
    pub fn verify(&self, round: u64, signature: &[u8]) -> Result<(), String> {
        let pk: [u8; 96] = hex::decode(self.public_key)
            .ok()
            .and_then(|v| v.try_into().ok())
            .ok_or_else(|| format!("{}: the recorded public key is not 96 bytes of hex", self.name))?;
        let key = G2PubkeyRfc::from_fixed(pk).map_err(|e| format!("{}: public key: {e}", self.name))?;
        match key.verify(round, b"", signature) {
            Ok(true) => Ok(()),
            Ok(false) => Err(format!(
                "the signature of {} round {round} does not verify against the network's public key",
                self.name
            )),
            Err(e) => Err(format!(
                "the signature of {} round {round} is malformed: {e}",
                self.name
            )),
        }
    }
}

/// The round a phase's commitment names (docs/dice.md 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeaconRound {
    pub network: String,
    pub round: u64,
}

/// A round with its signature: what the key folds in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeaconValue {
    pub network: String,
    pub round: u64,
    /// The BLS signature of the round (raw bytes, 48 for quicknet).
    pub signature: Vec<u8>,
}

impl BeaconValue {
    /// Check the signature against the named network.
    pub fn verify(&self) -> Result<(), String> {
        let net = network(&self.network).ok_or_else(|| format!("unknown beacon network '{}'", self.network))?;
        net.verify(self.round, &self.signature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quicknet round 123 as published by the network (the same recording
    /// the `drand-verify` crate tests against).
    const SIG_123: &str =
        "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92";

    #[test]
    fn rounds_follow_genesis_and_period() {
        let q = QUICKNET;
        assert_eq!(q.round_time(1), 1_692_803_367);
        assert_eq!(q.round_time(123), 1_692_803_367 + 3 * 122);
        // Strictly after: at the instant of round 1 the next one is 2.
        assert_eq!(q.round_after(q.genesis), 2);
        assert_eq!(q.round_after(q.genesis + 1), 2);
        assert_eq!(q.round_after(q.genesis + 3), 3);
        assert_eq!(q.round_after(q.genesis - 100), 1);
        for t in [q.genesis, q.genesis + 1, q.genesis + 2, q.genesis + 1000] {
            let r = q.round_after(t);
            assert!(q.round_time(r) > t, "round {r} after {t}");
            assert!(q.round_time(r - 1) <= t, "round {} is already after {t}", r - 1);
        }
    }

    /// The worked example of docs/dice.md with a beacon (an outside
    /// verifier reimplements it from the page).
    #[test]
    fn the_worked_beacon_example_of_the_docs_holds() {
        use crate::dice::{Entropy, commitment_with, derive_key_with, derive_roll, to_hex};
        use crate::ids::PowerId;
        let seed: [u8; 32] = std::array::from_fn(|i| i as u8);
        let mut e = Entropy::new();
        e.insert(PowerId::France, "Vive l'Empereur".into());
        e.insert(PowerId::Britain, "Rule, Britannia".into());
        let round = BeaconRound {
            network: "drand-quicknet".into(),
            round: 123,
        };
        assert_eq!(
            commitment_with("demo", "1805-fall-turn-start", &seed, Some(&round)),
            "12e76496dac34d781a9733e6b28a4b0dc53f64780a46b36bb0b2ce6f3c29c527"
        );
        let value = BeaconValue {
            network: "drand-quicknet".into(),
            round: 123,
            signature: hex::decode(SIG_123).unwrap(),
        };
        let key = derive_key_with(&seed, &e, Some(&value));
        assert_eq!(
            to_hex(&key),
            "d622d56e41e664a8a3ff432b1ed44214f3e065b53dad264a4bb2b2429038a5c0"
        );
        assert_eq!(derive_roll(&key, "land-battle/ulm/1/round-1/attacker", 10), 1);
        assert_eq!(derive_roll(&key, "land-battle/ulm/1/round-1/defender", 10), 10);
        assert_eq!(derive_roll(&key, "naval/channel/1/weather", 6), 6);
    }

    #[test]
    fn a_recorded_round_verifies_and_a_changed_one_does_not() {
        let sig = hex::decode(SIG_123).unwrap();
        QUICKNET.verify(123, &sig).unwrap();
        assert!(QUICKNET.verify(124, &sig).is_err());
        let mut bad = sig.clone();
        bad[10] ^= 1;
        assert!(QUICKNET.verify(123, &bad).is_err());
        assert!(QUICKNET.verify(123, &sig[..40]).is_err());
        assert_eq!(network("drand-quicknet"), Some(&QUICKNET));
        assert_eq!(network("drand-mainnet"), None);
    }
}
