//! The open phase's dice commitment: `phase/seed` (0600, never mailed
//! before resolution) and `phase/commitment` (public, TOML: game, phase,
//! commitment, chain head). See docs/dice.md.
//!
//! While a resolution is in flight the seed of the phase it opens waits in
//! `phase/next-seed` (0600); [`promote_next`] moves it into place once the
//! history entry is committed, and can be re-run after a crash.
//!
//! Each of these files is replaced through its spare (`store::spare`),
//! and `next-seed` is set aside to its spare rather than removed: a
//! resolution frees no inode.
#![allow(clippy::disallowed_methods)] // adapter: OS randomness and files

use super::{GameDir, atomic_write_mode, read_text, spare};
use crate::dice::{self, BeaconRound, Seed};
use crate::ids::PhaseId;
use crate::state::State;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `phase/commitment`: what the phase-opening mail publishes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseRecord {
    pub game: String,
    pub phase: PhaseId,
    /// SHA-256 commitment to the phase seed (hex, docs/dice.md).
    pub commitment: String,
    /// SHA-256 of the last history entry's `entry.toml` when the phase
    /// opened (64 zeros before the first), so players hold the chain head.
    pub chain: String,
    /// The public beacon the commitment names (docs/dice.md 2a): network
    /// and round, published only after the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_round: Option<u64>,
    /// `manual` when the phase was announced with physical dice before it
    /// opened (docs/dice.md 4); absent for committed dice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice: Option<String>,
}

impl PhaseRecord {
    /// The record of `phase` of `game`, committed to by `commitment`
    /// (naming `beacon`, if any) with the chain head `chain`.
    fn of(game: &str, phase: PhaseId, commitment: &str, chain: &str, beacon: Option<&BeaconRound>) -> Self {
        PhaseRecord {
            game: game.to_string(),
            phase,
            commitment: commitment.to_string(),
            chain: chain.to_string(),
            beacon: beacon.map(|b| b.network.clone()),
            beacon_round: beacon.map(|b| b.round),
            dice: None,
        }
    }

    /// The beacon round the commitment names, if any.
    pub fn beacon(&self) -> Option<BeaconRound> {
        beacon_of(self.beacon.as_deref(), self.beacon_round)
    }
}

/// A beacon round from its two recorded fields (both or none).
pub fn beacon_of(network: Option<&str>, round: Option<u64>) -> Option<BeaconRound> {
    Some(BeaconRound {
        network: network?.to_string(),
        round: round?,
    })
}

/// `phase/next-seed`: the staged seed of the phase a resolution opens.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct NextSeed {
    phase: PhaseId,
    seed: String,
    commitment: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    beacon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    beacon_round: Option<u64>,
}

pub fn seed_path(dir: &GameDir) -> PathBuf {
    dir.phase().join("seed")
}
pub fn commitment_path(dir: &GameDir) -> PathBuf {
    dir.phase().join("commitment")
}
pub fn next_seed_path(dir: &GameDir) -> PathBuf {
    dir.phase().join("next-seed")
}

/// `phase/seed-chain`: the last link of the game's seed chain (secret,
/// 0600) and the chain's length. Every phase's seed is a link of it, so
/// the seeds of the whole game were fixed when it was created (docs/dice.md 1a).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct SeedChain {
    top: String,
    length: u32,
}

pub fn seed_chain_path(dir: &GameDir) -> PathBuf {
    dir.phase().join("seed-chain")
}

/// How many links a new game's seed chain has: enough for a campaign of
/// ten years at ten phases a season with every phase resolved, rolled
/// back and corrected several times, and cheap to walk (one SHA-256 a link).
pub const CHAIN_LENGTH: u32 = 10_000;

/// Draw the seed chain of a new game and keep its last link (0600);
/// returns the anchor (link 0, published in the genesis entry) and the
/// seed of the first phase (link 1).
pub fn start_chain(dir: &GameDir, game: &str) -> Result<(Seed, Seed)> {
    let top = draw_seed()?;
    let text = toml::to_string(&SeedChain {
        top: dice::to_hex(&top),
        length: CHAIN_LENGTH,
    })
    .context("serialising phase/seed-chain")?;
    atomic_write_mode(&seed_chain_path(dir), text.as_bytes(), Some(0o600))?;
    let first = dice::chain_seed(game, &top, CHAIN_LENGTH, 1).context("a seed chain has at least one link")?;
    Ok((dice::chain_link(game, &first), first))
}

/// The seed of the next phase a game with a seed chain opens under a new
/// commitment: the link after the last one used (the genesis entry used
/// link 1, and each later entry that opened a phase, an undo excepted,
/// one more). `None` for a game created without a chain.
fn next_chain_seed(dir: &GameDir, game: &str) -> Result<Option<Seed>> {
    let path = seed_chain_path(dir);
    if !path.exists() {
        return Ok(None);
    }
    let text = read_text(&path)?;
    let chain: SeedChain =
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message().trim()))?;
    let top = dice::parse_hex32(&chain.top).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let head = super::history::read_head(dir)?;
    let mut used = 1u32;
    for (n, name) in super::history::list(dir)? {
        if n > head.entries {
            continue;
        }
        let (rec, _) = super::history::read_entry(dir, &name)?;
        if rec.next_commitment.is_some() && rec.kind != "undo" {
            used += 1;
        }
    }
    match dice::chain_seed(game, &top, chain.length, used + 1) {
        Some(s) => Ok(Some(s)),
        None => bail!(
            "the seed chain committed when the game was created has {} links, and all are used",
            chain.length
        ),
    }
}

/// 32 bytes from the operating system.
pub fn draw_seed() -> Result<Seed> {
    let mut seed = [0u8; dice::SEED_LEN];
    getrandom::fill(&mut seed).map_err(|e| anyhow::anyhow!("the OS gave no random bytes: {e}"))?;
    Ok(seed)
}

/// Draw a new seed for the open phase of `state`, write it (0600) and its
/// commitment (naming `beacon`, if any); returns the commitment (hex).
pub fn open(dir: &GameDir, state: &State, beacon: Option<&BeaconRound>) -> Result<String> {
    open_with_seed(dir, state, &draw_seed()?, beacon)
}

/// As [`open`] with a given seed (tests, benchmarks).
pub fn open_with_seed(dir: &GameDir, state: &State, seed: &Seed, beacon: Option<&BeaconRound>) -> Result<String> {
    let c = dice::commitment_with(&state.game, &state.phase.to_string(), seed, beacon);
    let chain = super::history::read_head(dir)?.head;
    let rec = PhaseRecord::of(&state.game, state.phase, &c, &chain, beacon);
    write_phase(dir, seed, &rec, &[])?;
    Ok(c)
}

/// Write `phase/seed` and `phase/commitment` (`rec`, 0600), after the
/// files of `first` and in the same step (one barrier before the
/// exchanges; see `store::spare`).
fn write_phase(dir: &GameDir, seed: &Seed, rec: &PhaseRecord, first: &[(&Path, &[u8])]) -> Result<()> {
    let seed_text = format!("{}\n", dice::to_hex(seed));
    let text = toml::to_string(rec).context("serialising phase/commitment")?;
    let (seed_file, commitment_file) = (seed_path(dir), commitment_path(dir));
    let mut files = first.to_vec();
    // The seed first: a commitment on disk always has its seed beside it.
    files.push((&seed_file, seed_text.as_bytes()));
    files.push((&commitment_file, text.as_bytes()));
    spare::replace_all(dir, &files)
}

/// The commitment of the open phase, if one was written.
pub fn commitment(dir: &GameDir) -> Result<Option<String>> {
    Ok(record(dir)?.map(|r| r.commitment))
}

/// The whole `phase/commitment` record, if one was written.
pub fn record(dir: &GameDir) -> Result<Option<PhaseRecord>> {
    let path = commitment_path(dir);
    if !path.exists() {
        return Ok(None);
    }
    let text = read_text(&path)?;
    let rec = toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message().trim()))?;
    Ok(Some(rec))
}

/// The open phase's secret seed.
pub fn read_seed(dir: &GameDir) -> Result<Seed> {
    let path = seed_path(dir);
    let text = read_text(&path)?;
    dice::parse_hex32(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Stage the seed of the phase a resolution will open (`phase/next-seed`,
/// 0600); returns its commitment. A seed already staged for that phase
/// (by a resolution interrupted before its commit point) is kept: running
/// the resolution again cannot draw the next phase's seed anew until it
/// pleases (nor its beacon round be moved).
pub fn stage_next(dir: &GameDir, game: &str, next: PhaseId, beacon: Option<&BeaconRound>) -> Result<String> {
    if let Some(n) = read_next(dir)?
        && n.phase == next
    {
        let seed = dice::parse_hex32(&n.seed).map_err(|e| anyhow::anyhow!("{}: {e}", next_seed_path(dir).display()))?;
        let staged = beacon_of(n.beacon.as_deref(), n.beacon_round);
        let c = dice::commitment_with(game, &next.to_string(), &seed, staged.as_ref());
        if c == n.commitment {
            return Ok(c);
        }
    }
    // docs/dice.md 1a: the next link of the game's seed chain, fixed when
    // the game was created; a game created without one draws a seed.
    let seed = match next_chain_seed(dir, game)? {
        Some(s) => s,
        None => draw_seed()?,
    };
    stage_next_with(dir, game, next, &seed, beacon)
}

/// As [`stage_next`] with a given seed: an undo reopens a phase under its
/// own seed, beacon round and commitment.
pub fn stage_next_with(
    dir: &GameDir,
    game: &str,
    next: PhaseId,
    seed: &Seed,
    beacon: Option<&BeaconRound>,
) -> Result<String> {
    let seed = *seed;
    let c = dice::commitment_with(game, &next.to_string(), &seed, beacon);
    let rec = NextSeed {
        phase: next,
        seed: dice::to_hex(&seed),
        commitment: c.clone(),
        beacon: beacon.map(|b| b.network.clone()),
        beacon_round: beacon.map(|b| b.round),
    };
    let text = toml::to_string(&rec).context("serialising phase/next-seed")?;
    spare::replace_all(dir, &[(&next_seed_path(dir), text.as_bytes())])?;
    Ok(c)
}

/// The commitment of the staged next seed, if there is one.
pub fn staged_commitment(dir: &GameDir) -> Result<Option<String>> {
    Ok(read_next(dir)?.map(|n| n.commitment))
}

/// The phase of the staged seed (`phase/next-seed`), if one is staged: a
/// resolution cut between writing the new state and its commitment
/// leaves it until `resolve::recover` (or the next resolution) finishes.
pub fn staged_phase(dir: &GameDir) -> Result<Option<PhaseId>> {
    Ok(read_next(dir)?.map(|n| n.phase))
}

fn read_next(dir: &GameDir) -> Result<Option<NextSeed>> {
    let path = next_seed_path(dir);
    if !path.exists() {
        return Ok(None);
    }
    let text = read_text(&path)?;
    let n = toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message().trim()))?;
    Ok(Some(n))
}

/// Move the staged seed into place as the open phase's seed and
/// commitment, replacing the files of `first` in the same step before
/// them (the resolution's new state), then drop `next-seed`. Idempotent.
pub fn promote_next(dir: &GameDir, game: &str, first: &[(&Path, &[u8])]) -> Result<()> {
    let Some(n) = read_next(dir)? else {
        bail!("no staged seed in {}", next_seed_path(dir).display());
    };
    let seed = dice::parse_hex32(&n.seed).map_err(|e| anyhow::anyhow!("{}: {e}", next_seed_path(dir).display()))?;
    let chain = super::history::read_head(dir)?.head;
    let beacon = beacon_of(n.beacon.as_deref(), n.beacon_round);
    let mut rec = PhaseRecord::of(game, n.phase, &n.commitment, &chain, beacon.as_ref());
    rec.dice = physical_announced(dir, n.phase)?.then(|| "manual".to_string());
    write_phase(dir, &seed, &rec, first)?;
    discard_next(dir)
}

/// Drop a staged seed (an uncommitted resolution).
pub fn discard_next(dir: &GameDir) -> Result<()> {
    let path = next_seed_path(dir);
    if path.exists() {
        // Its removal ends a resolution (see `ops::resolve`): the new
        // state, seed and commitment are durable first. Set aside to its
        // spare, not removed: the next resolution stages its seed there.
        super::durable::barrier()?;
        spare::set_aside(dir, &path)?;
    }
    Ok(())
}

/// `phase/physical-dice.toml`: the phases the moderator announced, before
/// they opened, would be resolved with physical dice (docs/dice.md 4).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PhysicalDice {
    #[serde(default)]
    pub phases: Vec<PhaseId>,
}

pub fn physical_dice_path(dir: &GameDir) -> PathBuf {
    dir.phase().join("physical-dice.toml")
}

/// The phases announced with physical dice.
pub fn physical_dice(dir: &GameDir) -> Result<PhysicalDice> {
    let path = physical_dice_path(dir);
    if !path.exists() {
        return Ok(PhysicalDice::default());
    }
    let text = read_text(&path)?;
    toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message().trim()))
}

/// Whether `phase` was announced with physical dice.
pub fn physical_announced(dir: &GameDir, phase: PhaseId) -> Result<bool> {
    Ok(physical_dice(dir)?.phases.contains(&phase))
}

/// Record that `phase` will be resolved with physical dice.
pub fn announce_physical(dir: &GameDir, phase: PhaseId) -> Result<()> {
    let mut p = physical_dice(dir)?;
    if !p.phases.contains(&phase) {
        p.phases.push(phase);
        p.phases.sort();
    }
    let text = toml::to_string(&p).context("serialising phase/physical-dice.toml")?;
    super::atomic_write(&physical_dice_path(dir), text.as_bytes())
}

/// `phase/previews`: how many previews (with throwaway seeds) were run in
/// the open phase; the resolution's entry says so.
pub fn previews_path(dir: &GameDir) -> PathBuf {
    dir.phase().join("previews")
}

/// The number of previews run in the open phase.
pub fn previews(dir: &GameDir) -> Result<u32> {
    let path = previews_path(dir);
    if !path.exists() {
        return Ok(0);
    }
    let text = read_text(&path)?;
    text.trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("{}: '{}' is not a count", path.display(), text.trim()))
}

/// Count one more preview of the open phase.
pub fn count_preview(dir: &GameDir) -> Result<u32> {
    let n = previews(dir)? + 1;
    atomic_write_mode(&previews_path(dir), format!("{n}\n").as_bytes(), Some(0o600))?;
    Ok(n)
}

/// Forget the previews (the phase was resolved or rolled back).
pub fn clear_previews(dir: &GameDir) -> Result<()> {
    let path = previews_path(dir);
    if path.exists() {
        std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
    }
    Ok(())
}
