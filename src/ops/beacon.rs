//! The public beacon's adapter (docs/dice.md 2a): which round a phase
//! opened now names, and fetching that round over HTTP(S) once it is
//! published. The signature is checked offline (`dice::beacon`) before
//! anything uses it, so the relay need not be trusted.
#![allow(clippy::disallowed_methods)] // adapter: network

use crate::dice::beacon::{self, Network};
use crate::dice::{BeaconRound, BeaconValue};
use crate::ids::PhaseId;
use crate::store::GameConfig;
use anyhow::{Context, Result, anyhow, bail};
use chrono::{DateTime, Utc};
use std::time::Duration;

/// drand's public relay, used when game.toml names no `beacon_url`.
pub const DEFAULT_URL: &str = "https://api.drand.sh";

/// The network game.toml names, if any.
pub fn network_of(config: &GameConfig) -> Result<Option<&'static Network>> {
    match &config.dice.beacon {
        None => Ok(None),
        Some(name) => beacon::network(name)
            .map(Some)
            .ok_or_else(|| anyhow!("game.toml: dice.beacon '{name}' is not a beacon this build knows")),
    }
}

/// The round the commitment of `phase`, opened at `opened`, names: the
/// first published strictly after the phase's deadline as its clock will
/// compute it (deadline hours of the phase's kind from `opened`, snapped
/// to the allowed days and time). `None` without a beacon.
pub fn round_for(config: &GameConfig, phase: PhaseId, opened: DateTime<Utc>) -> Result<Option<BeaconRound>> {
    let Some(net) = network_of(config)? else {
        return Ok(None);
    };
    let deadline = config.deadlines.deadline(opened, phase.step, config.tz());
    Ok(Some(BeaconRound {
        network: net.name.to_string(),
        round: net.round_after(deadline.timestamp()),
    }))
}

/// When a round is published.
pub fn published_at(b: &BeaconRound) -> Result<DateTime<Utc>> {
    let net = beacon::network(&b.network).ok_or_else(|| anyhow!("unknown beacon network '{}'", b.network))?;
    DateTime::from_timestamp(net.round_time(b.round), 0)
        .ok_or_else(|| anyhow!("{} round {} has no representable time", b.network, b.round))
}

/// The outcome of asking for a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fetched {
    /// Published, and its signature verifies.
    Ready(BeaconValue),
    /// Not published yet (by the clock, or the relay says so).
    NotYet { at: DateTime<Utc> },
}

/// Fetch round `b` from `<beacon_url>/<chain hash>/public/<round>` (the
/// drand HTTP API) unless the clock says it cannot be out yet, and check
/// its signature. A relay error is an operational failure (`Err`); a
/// round the relay does not have yet (404, 425) is [`Fetched::NotYet`].
pub fn fetch(config: &GameConfig, b: &BeaconRound, now: DateTime<Utc>) -> Result<Fetched> {
    let net = beacon::network(&b.network).ok_or_else(|| anyhow!("unknown beacon network '{}'", b.network))?;
    let at = published_at(b)?;
    if now < at {
        return Ok(Fetched::NotYet { at });
    }
    let base = config.dice.beacon_url.as_deref().unwrap_or(DEFAULT_URL);
    let url = format!("{}/{}/public/{}", base.trim_end_matches('/'), net.chain_hash, b.round);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(20)))
        .http_status_as_error(false)
        .build()
        .into();
    let mut resp = agent
        .get(&url)
        .call()
        .map_err(|e| anyhow!("fetching {} round {} from {url}: {e}", b.network, b.round))?;
    let status = resp.status().as_u16();
    // drand relays answer 425 Too Early (older ones 404) for a round not
    // yet published: the clocks disagree by a few seconds; wait.
    if status == 404 || status == 425 {
        return Ok(Fetched::NotYet { at });
    }
    if status != 200 {
        bail!("fetching {} round {} from {url}: HTTP {status}", b.network, b.round);
    }
    let body = resp
        .body_mut()
        .with_config()
        .limit(64 * 1024)
        .read_to_string()
        .with_context(|| format!("reading {url}"))?;
    let value = parse_round(&body, b).with_context(|| url.clone())?;
    value.verify().map_err(|e| anyhow!("{url}: {e}"))?;
    Ok(Fetched::Ready(value))
}

/// The drand JSON of a round: `{"round": N, "signature": "<hex>", …}`.
pub fn parse_round(body: &str, b: &BeaconRound) -> Result<BeaconValue> {
    #[derive(serde::Deserialize)]
    struct Round {
        round: u64,
        signature: String,
    }
    let r: Round = serde_json::from_str(body).map_err(|e| anyhow!("not a drand round: {e}"))?;
    if r.round != b.round {
        bail!("the relay sent round {} when round {} was asked for", r.round, b.round);
    }
    let signature = hex::decode(r.signature.trim()).map_err(|e| anyhow!("the round's signature is not hex: {e}"))?;
    Ok(BeaconValue {
        network: b.network.clone(),
        round: b.round,
        signature,
    })
}
