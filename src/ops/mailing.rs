//! Mailing the history: every entry, whichever command made it
//! (`run`, `resolve` by hand, `autoplay`, `undo`), reaches every player
//! once and in order: the turn report of a resolution (or the notice of
//! an undo), then the opening of the phase the entry opened. What has
//! been queued is recorded per entry and per recipient in
//! `mail/mailed.toml` ([`crate::mail::mailed`]), so `run` and
//! `empereur mail` queue exactly what is missing, and a crash between
//! queuing and recording queues the same message ids again (replacing,
//! never duplicating). `empereur resend` queues a copy under a new id.
#![allow(clippy::disallowed_methods)] // adapter

use super::workflow::ensure_clock;
use super::{Done, clock};
use crate::ids::PowerId;
use crate::mail::compose::{self, Opening, Recipients};
use crate::mail::mailed::{self, Item, Mailed};
use crate::mail::outbox::{self, OutMail};
use crate::mail::transport::{self, Delivery};
use crate::report::Templates;
use crate::state::State;
use crate::store::history::{self, EntryRecord};
use crate::store::{self, GameConfig, GameDir};
use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct MailArgs {
    /// The game directory.
    pub game: PathBuf,
    /// Queue only; leave delivery to `send` or the next `run`.
    pub no_send: bool,
}

#[derive(Debug, Clone)]
pub struct ResendArgs {
    /// The game directory.
    pub game: PathBuf,
    /// The power whose player gets the mail again.
    pub power: String,
    /// The history entry: its number (`14`) or directory name.
    pub entry: Option<String>,
    /// The last history entry (the default), or the first phase's
    /// opening when nothing has been resolved yet.
    pub last: bool,
    /// Queue only; leave delivery to `send` or the next `run`.
    pub no_send: bool,
}

/// Every recipient key of a report: the players' power ids,
/// `moderator`, and each observer's (`compose::observer_key`).
fn everyone(config: &GameConfig) -> Vec<String> {
    let mut v: Vec<String> = config.players.iter().map(|p| p.power.id().to_string()).collect();
    v.push("moderator".to_string());
    v.extend(config.observers.iter().map(compose::observer_key));
    v
}

fn read_toml<T: serde::de::DeserializeOwned>(p: &Path) -> Result<T> {
    toml::from_str(&store::read_text(p)?).with_context(|| format!("{} is damaged", p.display()))
}

fn read_state(p: &Path) -> Result<State> {
    State::from_toml(&store::read_text(p)?).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
}

/// The deadline of the open phase (its clock started if it had not).
fn open_phase_deadline(dir: &GameDir, config: &GameConfig, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let schedule = dir.load_schedule()?;
    let pclock = ensure_clock(dir, config, now)?;
    Ok(pclock.deadline(now, &config.deadlines, config.tz(), &schedule.absences))
}

/// The open phase's deadline, if its clock has started (it starts at
/// the first `run` or `mail`, or a hand resolve). Each reader gets it
/// written in their own zone (`zone::shown`).
pub fn open_deadline(dir: &GameDir, config: &GameConfig, now: DateTime<Utc>) -> Result<Option<DateTime<Utc>>> {
    let state = dir.load_state()?;
    let Some(c) = dir.load_clock()?.filter(|c| c.phase == Some(state.phase)) else {
        return Ok(None);
    };
    let schedule = dir.load_schedule()?;
    Ok(Some(c.deadline(
        now,
        &config.deadlines,
        config.tz(),
        &schedule.absences,
    )))
}

/// What one entry's mail needs, read from its directory.
struct EntryMail {
    name: String,
    rec: EntryRecord,
    /// The state the entry left (its `state-after.toml`), if it has one.
    after: Option<State>,
}

fn read_entry_mail(dir: &GameDir, name: &str) -> Result<EntryMail> {
    let (rec, _) = history::read_entry(dir, name)?;
    let p = history::entry_dir(dir, name).join("state-after.toml");
    let after = if p.is_file() { Some(read_state(&p)?) } else { None };
    Ok(EntryMail {
        name: name.to_string(),
        rec,
        after,
    })
}

/// What a resolution's report is made of, read from its entry.
struct ReportData {
    outcomes: history::OutcomesFile,
    entropy: Vec<String>,
    seed: Option<String>,
    dice_log: Option<Vec<u8>>,
    /// The state the phase started from (the map draws its moves).
    before: State,
    /// The orders lock as players read it.
    lock: Option<String>,
}

fn read_report(dir: &GameDir, e: &EntryMail) -> Result<ReportData> {
    let edir = history::entry_dir(dir, &e.name);
    let outcomes: history::OutcomesFile = read_toml(&edir.join("outcomes.toml"))?;
    let entropy: history::EntropyFile = read_toml(&edir.join("entropy.toml")).unwrap_or_default();
    let seed = store::read_text(&edir.join("seed")).ok().map(|s| s.trim().to_string());
    let dice_log = std::fs::read(edir.join("dice.toml")).ok();
    let before = read_state(&edir.join("state-before.toml"))?;
    let lock_path = edir.join("lock.toml");
    let lock = if lock_path.is_file() {
        let l: history::LockFile = read_toml(&lock_path)?;
        Some(super::lock::render(&l))
    } else {
        None
    };
    Ok(ReportData {
        outcomes,
        entropy: entropy
            .entropy
            .iter()
            .map(|(p, e)| format!("{}: {e}", p.id()))
            // docs/dice.md 9: the players are told, not only `verify`.
            .chain(
                e.rec
                    .note
                    .contains(super::resolve::FORESEEABLE)
                    .then(|| format!("none: {}", super::resolve::FORESEEABLE)),
            )
            .collect(),
        seed,
        dice_log,
        before,
        lock,
    })
}

fn resolved_of<'a>(
    e: &'a EntryMail,
    after: &'a State,
    d: &'a ReportData,
    scenario: &'a crate::scenario::Scenario,
    map_unchanged: BTreeMap<String, String>,
) -> compose::Resolved<'a> {
    compose::Resolved {
        phase: e.rec.phase.to_string(),
        entry: e.name.clone(),
        after,
        outcomes: &d.outcomes.outcomes,
        seed: d.seed.clone(),
        entropy: d.entropy.clone(),
        dice_log: d.dice_log.clone(),
        pictures: Some((scenario, &d.before)),
        lock: d.lock.clone(),
        map_unchanged,
    }
}

/// Queue the report (or notice) of an entry for the recipients in `to`;
/// `map_unchanged` as in [`compose::Resolved`].
#[allow(clippy::too_many_arguments)]
fn queue_report(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    scenario: &crate::scenario::Scenario,
    e: &EntryMail,
    to: &Recipients,
    map_unchanged: BTreeMap<String, String>,
    now: DateTime<Utc>,
) -> Result<Vec<(String, String)>> {
    let edir = history::entry_dir(dir, &e.name);
    match e.rec.kind.as_str() {
        "resolve" => {
            let Some(after) = &e.after else {
                bail!("history/{} has no state-after.toml", e.name)
            };
            let d = read_report(dir, e)?;
            let r = resolved_of(e, after, &d, scenario, map_unchanged);
            // Proposals pending in the phase the entry opened, if it is
            // still open (those of the resolved phase were answered in it).
            let open = history::read_head(dir)?.last == e.name;
            let proposals = if open {
                stored_proposals(dir, after)?
            } else {
                BTreeMap::new()
            };
            let mut queued = compose::turn_reports_to(dir, templates, config, &r, &proposals, to, now)?;
            queued.extend(bid_seat_mail(dir, config, &e.name, after, to, now)?);
            Ok(queued)
        }
        "undo" => {
            let reason = store::read_text(&edir.join("reason.txt")).unwrap_or_default();
            let phase = e.after.as_ref().map(|s| s.phase.to_string()).unwrap_or_default();
            let body = format!(
                "The moderator has rolled back the resolution of {phase} ({}).\nReason: {}\n\nPhase {phase} is open again under its own seed, commitment and entropy (its opening follows): resolving it again rolls the same die for the same purpose, whatever changes. The seed of the phase that was open is revealed in history/{} so anyone can check it. Orders stored for the undone phase stand again; you may replace them.",
                e.rec.note.split(':').next().unwrap_or(&e.rec.note),
                reason.trim(),
                e.name,
            );
            notice(dir, config, &e.name, &format!("{phase} is rolled back"), &body, to, now)
        }
        _ => Ok(Vec::new()),
    }
}

/// 3.1: after the country bid each player is told, in a mail of its own,
/// which power it now plays (the bid may give it another power than the
/// seat it bid under). Nothing for an entry that was not a bid.
fn bid_seat_mail(
    dir: &GameDir,
    config: &GameConfig,
    entry: &str,
    after: &State,
    to: &Recipients,
    now: DateTime<Utc>,
) -> Result<Vec<(String, String)>> {
    let Some(seats) = super::resolve::recorded_bid_seats(dir, entry)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for s in &seats.seat {
        let Some(p) = config.players.get(s.player) else {
            bail!(
                "history/{entry}: the bid seats player number {}, not in game.toml",
                s.player + 1
            )
        };
        // keyed by the power the player plays now, as every later mail is
        let who = s.plays.id().to_string();
        if to.skip.contains(&who) || to.only.as_ref().is_some_and(|o| !o.contains(&who)) {
            continue;
        }
        let mut parts = vec!["bid-seat", config.game.as_str(), entry, who.as_str()];
        if let Some(tag) = &to.resend {
            parts.push("resend");
            parts.push(tag);
        }
        let changed = if s.bid_as == s.plays {
            format!("the bid leaves you on {}, the seat you bid under", s.plays.name())
        } else {
            format!(
                "the bid gives you {}: you bid under the seat of {}, which is no longer yours",
                s.plays.name(),
                s.bid_as.name()
            )
        };
        let told = format!(
            "{}, the country bid of game {} is resolved (rule 3.1): {changed}. You play {} for the rest of the game, starting with {} VP (3.5).",
            s.name,
            config.game,
            s.plays.name(),
            after.power(s.plays).vp
        );
        let next = format!(
            "From the open phase ({}) on you give {}'s orders: write POWER {} in your orders, with the password you already have. {}'s state file is attached.",
            after.phase,
            s.plays.name(),
            s.plays.id(),
            s.plays.name()
        );
        let body = format!(
            "{}\n\n{}\n\n--\nEmpereur, for game {}.\n",
            textwrap::fill(&told, 72),
            textwrap::fill(&next, 72),
            config.game
        );
        let m = OutMail {
            attachments: vec![outbox::FileAttachment::state(after, Some(s.plays))],
            ..compose::game_mail(
                config,
                outbox::stable_id(&parts),
                vec![compose::player_addr(p)],
                format!(
                    "Empereur {}: the bid is resolved, you play {}",
                    config.game,
                    s.plays.name()
                ),
                body,
                now,
            )
        };
        outbox::queue(dir, &m)?;
        out.push((who, m.id));
    }
    Ok(out)
}

/// A notice about an entry to the players and the moderator `to` wants,
/// one message each (so each is tracked on its own).
fn notice(
    dir: &GameDir,
    config: &GameConfig,
    entry: &str,
    subject: &str,
    body: &str,
    to: &Recipients,
    now: DateTime<Utc>,
) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (power, addr) in compose::table(config) {
        let who = power.map_or("moderator", |p| p.id()).to_string();
        if to.skip.contains(&who) || to.only.as_ref().is_some_and(|o| !o.contains(&who)) {
            continue;
        }
        let mut parts = vec!["notice", config.game.as_str(), entry, who.as_str()];
        if let Some(tag) = &to.resend {
            parts.push("resend");
            parts.push(tag);
        }
        let m = compose::game_mail(
            config,
            outbox::stable_id(&parts),
            vec![addr],
            format!("Empereur {}: {subject}", config.game),
            format!(
                "{}\n\n--\nEmpereur, for game {}. The moderator's actions are recorded in the game's journal and history.\n",
                textwrap::fill(body, 72),
                config.game
            ),
            now,
        );
        outbox::queue(dir, &m)?;
        out.push((who, m.id));
    }
    Ok(out)
}

/// The opening of the phase opened by `opened_by` (an entry name, or
/// `mailed::START`), as it stood then; when it is the open phase
/// (`closed_by` is `None`), with its deadline and pending proposals.
fn opening_of<'a>(
    dir: &GameDir,
    config: &GameConfig,
    state: &'a State,
    opened_by: &str,
    commitment: Option<String>,
    closed_by: Option<String>,
    now: DateTime<Utc>,
) -> Result<Opening<'a>> {
    let open_now = closed_by.is_none();
    Ok(Opening {
        state,
        entry: opened_by.to_string(),
        deadline: if open_now {
            Some(open_phase_deadline(dir, config, now)?)
        } else {
            None
        },
        commitment,
        closed_by,
        proposals: if open_now {
            stored_proposals(dir, state)?
        } else {
            BTreeMap::new()
        },
    })
}

/// The proposals pending in the open phase, per power, from the stored
/// submissions.
pub fn stored_proposals(dir: &GameDir, state: &State) -> Result<BTreeMap<PowerId, Vec<String>>> {
    let subs = store::submission::load_all(dir)?;
    let orders = subs
        .into_iter()
        .filter(|(_, s)| s.phase == state.phase)
        .map(|(p, s)| (p, s.orders))
        .collect();
    Ok(crate::report::pending_proposals(state, &orders))
}

/// The picture of `viewer`'s view of `state` without this phase's moves
/// and title, as a digest: two positions with the same digest draw the
/// same map.
fn view_key(scenario: &crate::scenario::Scenario, state: &State, viewer: Option<PowerId>) -> Result<[u8; 32]> {
    use sha2::Digest;
    let svg = crate::picture::Scene::new(scenario, state, None, &[], viewer, "").svg()?;
    Ok(sha2::Sha256::digest(svg.as_bytes()).into())
}

/// A history entry as the maps mailed after it see it.
enum MapStep {
    /// A resolution: the phase it resolved, its states before and after,
    /// its outcomes.
    Resolved(String, Box<(State, State)>, Vec<crate::rules::Outcome>),
    /// Another entry whose opening went out with a map: the phase opened.
    Opened(String),
    /// An entry that mailed no map.
    None,
}

impl MapStep {
    fn read(dir: &GameDir, name: &str) -> Result<MapStep> {
        let e = read_entry_mail(dir, name)?;
        Ok(match (e.rec.kind.as_str(), e.after) {
            ("resolve", Some(after)) => {
                let edir = history::entry_dir(dir, name);
                let before = read_state(&edir.join("state-before.toml"))?;
                let outcomes: history::OutcomesFile = read_toml(&edir.join("outcomes.toml"))?;
                MapStep::Resolved(e.rec.phase.to_string(), Box::new((before, after)), outcomes.outcomes)
            }
            (_, Some(after)) if e.rec.next_phase.is_some() && after.over.is_none() => {
                MapStep::Opened(after.phase.to_string())
            }
            _ => MapStep::None,
        })
    }

    /// Whether `viewer`'s map of this resolution differs from the map of
    /// the position before it: a unit moved, a battle or siege it sees,
    /// or anything else drawn.
    fn changed(&self, scenario: &crate::scenario::Scenario, viewer: Option<PowerId>) -> Result<bool> {
        let MapStep::Resolved(phase, states, outcomes) = self else {
            return Ok(true);
        };
        let (before, after) = (&states.0, &states.1);
        let scene = crate::picture::Scene::new(scenario, after, Some(before), outcomes, viewer, phase);
        Ok(!scene.moves.is_empty()
            || !scene.marks.is_empty()
            || view_key(scenario, before, viewer)? != view_key(scenario, after, viewer)?)
    }
}

/// Entry `m` as the maps see it, read once into `steps`.
fn map_step<'s>(
    steps: &'s mut BTreeMap<u32, MapStep>,
    dir: &GameDir,
    names: &BTreeMap<u32, String>,
    m: u32,
) -> Result<&'s MapStep> {
    if let std::collections::btree_map::Entry::Vacant(v) = steps.entry(m) {
        v.insert(match names.get(&m) {
            Some(name) => MapStep::read(dir, name)?,
            None => MapStep::None,
        });
    }
    Ok(&steps[&m])
}

/// The recipients of `whom` (power ids, `moderator`) whose map of entry
/// `n`, a resolution, would show what the last map they were mailed
/// showed, each with the line that tells them so instead: the map goes
/// out only when the recipient's view changed.
fn map_unchanged(
    dir: &GameDir,
    scenario: &crate::scenario::Scenario,
    names: &BTreeMap<u32, String>,
    n: u32,
    whom: &BTreeSet<String>,
) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    if !crate::picture::wanted(&scenario.map) {
        return Ok(out);
    }
    let mut steps: BTreeMap<u32, MapStep> = BTreeMap::new();
    for who in whom {
        let viewer = match who.as_str() {
            "moderator" => None,
            // An observer's report always carries the public map.
            id if id.starts_with("observer:") => continue,
            id => Some(id.parse::<PowerId>().map_err(anyhow::Error::msg)?),
        };
        if map_step(&mut steps, dir, names, n)?.changed(scenario, viewer)? {
            continue;
        }
        // The last map mailed: walk back to the entry that changed the
        // view (or opened a phase with a map), else the first opening.
        let mut since = None;
        for m in (1..n).rev() {
            since = match map_step(&mut steps, dir, names, m)? {
                s @ MapStep::Resolved(phase, ..) if s.changed(scenario, viewer)? => Some(phase.clone()),
                MapStep::Opened(phase) => Some(phase.clone()),
                _ => None,
            };
            if since.is_some() {
                break;
            }
        }
        let since = match (since, map_step(&mut steps, dir, names, 1)?) {
            (Some(p), _) => p,
            (None, MapStep::Resolved(phase, ..)) => phase.clone(),
            (None, _) => continue, // no earlier map known: send one
        };
        out.insert(
            who.clone(),
            format!("Map: unchanged since {since} (map-{since}-{who}.png)."),
        );
    }
    Ok(out)
}

/// Record every history entry's report and opening (and the first
/// phase's opening) as mailed to `power`: a player seated now gets one
/// welcome (`ops::seat`), not the whole history, and the mail of later
/// entries as everyone does.
pub fn mark_mailed_to(dir: &GameDir, power: PowerId) -> Result<()> {
    let config = dir.load_config()?;
    let mut m = mailed::load(dir, &everyone(&config))?;
    let who = power.id();
    m.mark(Item::Opening, mailed::START, who);
    for name in history::list(dir)?.values() {
        m.mark(Item::Report, name, who);
        m.mark(Item::Opening, name, who);
    }
    mailed::save(dir, &m)
}

/// What [`mail_pending`] queued.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Queued {
    /// (item, entry, recipient, message id), in the order queued.
    pub messages: Vec<(String, String, String, String)>,
}

/// What [`mail_pending`] mails one history entry with.
struct EntryCtx<'a> {
    dir: &'a GameDir,
    templates: &'a Templates,
    config: &'a GameConfig,
    scenario: &'a crate::scenario::Scenario,
    names: &'a BTreeMap<u32, String>,
    /// How many entries the history holds.
    entries: u32,
    now: DateTime<Utc>,
}

/// Queue entry `n`'s mail for those owed its report and its opening:
/// one phase mail to a player owed both by a resolution, the report or
/// the opening alone to the others. Returns (item, entry, recipient,
/// message id) of each message queued.
fn mail_entry(
    cx: &EntryCtx<'_>,
    n: u32,
    name: &str,
    report_todo: &BTreeSet<String>,
    opening_todo: &BTreeSet<String>,
) -> Result<Vec<(String, String, String, String)>> {
    let mut msgs = Vec::new();
    let e = read_entry_mail(cx.dir, name)?;
    // The opening of the phase the entry opened, if it has one.
    let opening = match (&e.after, e.rec.next_phase) {
        (Some(after), Some(_)) if after.over.is_none() && !opening_todo.is_empty() => {
            let open_now = n == cx.entries;
            let closed_by = (!open_now).then(|| cx.names.get(&(n + 1)).cloned()).flatten();
            let commitment = if open_now {
                store::phase::commitment(cx.dir)?
            } else {
                e.rec.next_commitment.clone()
            };
            Some(opening_of(
                cx.dir, cx.config, after, name, commitment, closed_by, cx.now,
            )?)
        }
        _ => None,
    };
    // A player owed both the report of a resolution and the opening
    // it made gets them in one mail.
    let both: BTreeSet<String> = match (&opening, e.rec.kind.as_str(), &e.after) {
        (Some(_), "resolve", Some(_)) => report_todo.intersection(opening_todo).cloned().collect(),
        _ => BTreeSet::new(),
    };
    let unchanged = if e.rec.kind == "resolve" {
        map_unchanged(cx.dir, cx.scenario, cx.names, n, report_todo)?
    } else {
        BTreeMap::new()
    };
    if let (Some(o), Some(after), false) = (&opening, &e.after, both.is_empty()) {
        let d = read_report(cx.dir, &e)?;
        let r = resolved_of(&e, after, &d, cx.scenario, unchanged.clone());
        let to = Recipients {
            only: Some(both.clone()),
            ..Recipients::default()
        };
        for (who, id) in compose::phase_mails_to(cx.dir, cx.templates, cx.config, cx.scenario, &r, o, &to, cx.now)? {
            msgs.push(("phase".into(), name.to_string(), who, id));
        }
        // 3.1: the bid's own mail to each player it seats.
        for (who, id) in bid_seat_mail(cx.dir, cx.config, name, after, &to, cx.now)? {
            msgs.push(("report".into(), name.to_string(), who, id));
        }
    }
    let report_rest: BTreeSet<String> = report_todo.difference(&both).cloned().collect();
    if !report_rest.is_empty() {
        let to = Recipients {
            only: Some(report_rest),
            ..Recipients::default()
        };
        for (who, id) in queue_report(cx.dir, cx.templates, cx.config, cx.scenario, &e, &to, unchanged, cx.now)? {
            msgs.push(("report".into(), name.to_string(), who, id));
        }
    }
    let opening_rest: BTreeSet<String> = opening_todo.difference(&both).cloned().collect();
    if let (Some(o), false) = (&opening, opening_rest.is_empty()) {
        let to = Recipients {
            only: Some(opening_rest),
            ..Recipients::default()
        };
        for (who, id) in compose::opening_to(cx.dir, cx.templates, cx.config, cx.scenario, o, &to, cx.now)? {
            msgs.push(("opening".into(), name.to_string(), who, id));
        }
    }
    Ok(msgs)
}

/// Queue every entry's mail not yet queued, oldest first: for each entry
/// its report (or notice), then the opening of the phase it opened. Call
/// with the game lock held.
pub fn mail_pending(dir: &GameDir, templates: &Templates, now: DateTime<Utc>) -> Result<Queued> {
    let config = dir.load_config()?;
    let all = everyone(&config);
    let mut mailed = mailed::load(dir, &all)?;
    let head = history::read_head(dir)?;
    let mut out = Queued::default();
    let players: BTreeSet<String> = config.players.iter().map(|p| p.power.id().to_string()).collect();
    // Who is owed each phase's opening: every player and every observer
    // (whose opening is the public one).
    let openers: BTreeSet<String> = players
        .iter()
        .cloned()
        .chain(config.observers.iter().map(compose::observer_key))
        .collect();
    let missing = |m: &Mailed, item: Item, entry: &str, whom: &BTreeSet<String>| -> BTreeSet<String> {
        whom.iter().filter(|w| !m.has(item, entry, w)).cloned().collect()
    };
    // The quiet run: entries are mailed in order, so when the last one is
    // done (and the record was not just converted) all are.
    let everyone_set: BTreeSet<String> = all.iter().cloned().collect();
    let done = if head.entries == 0 {
        missing(&mailed, Item::Opening, mailed::START, &openers).is_empty()
    } else {
        missing(&mailed, Item::Report, &head.last, &everyone_set).is_empty()
            && missing(&mailed, Item::Opening, &head.last, &openers).is_empty()
    };
    if done && !mailed.converted() {
        return Ok(out);
    }
    let scenario = dir.load_scenario(&config)?;
    let names = history::list(dir)?;

    // An observer added to a running game (or seated before observers
    // got openings) starts with the last report and opening, not with
    // the whole history.
    let entries: Vec<&String> = (1..=head.entries).filter_map(|n| names.get(&n)).collect();
    if let Some((_, older)) = entries.split_last() {
        for key in config.observers.iter().map(compose::observer_key) {
            if !entries.iter().any(|e| mailed.has(Item::Report, e, &key)) {
                for e in older {
                    mailed.mark(Item::Report, e, &key);
                }
            }
            let opened = |e: &str| mailed.has(Item::Opening, e, &key);
            if !opened(mailed::START) && !entries.iter().any(|e| opened(e)) {
                mailed.mark(Item::Opening, mailed::START, &key);
                for e in older {
                    mailed.mark(Item::Opening, e, &key);
                }
            }
        }
    }

    // The first phase's opening: the state before entry 1 (or now).
    let todo = missing(&mailed, Item::Opening, mailed::START, &openers);
    if !todo.is_empty() {
        let (state, commitment, closed_by) = match names.get(&1).filter(|_| head.entries >= 1) {
            Some(first) => {
                let edir = history::entry_dir(dir, first);
                let (rec, _) = history::read_entry(dir, first)?;
                (
                    read_state(&edir.join("state-before.toml"))?,
                    rec.commitment.clone(),
                    Some(first.clone()),
                )
            }
            None => (dir.load_state()?, store::phase::commitment(dir)?, None),
        };
        if state.over.is_none() {
            let o = opening_of(dir, &config, &state, mailed::START, commitment, closed_by, now)?;
            let to = Recipients {
                only: Some(todo),
                ..Recipients::default()
            };
            for (who, id) in compose::opening_to(dir, templates, &config, &scenario, &o, &to, now)? {
                mailed.mark(Item::Opening, mailed::START, &who);
                out.messages.push(("opening".into(), mailed::START.into(), who, id));
            }
        }
        // Nothing to mail to a player of a game that is over: mark it.
        for w in &openers {
            mailed.mark(Item::Opening, mailed::START, w);
        }
        mailed::save(dir, &mailed)?;
    }

    for n in 1..=head.entries {
        let Some(name) = names.get(&n) else {
            bail!("history entry {n} is missing (head names {} entries)", head.entries)
        };
        let report_todo = missing(&mailed, Item::Report, name, &everyone_set);
        let opening_todo = missing(&mailed, Item::Opening, name, &openers);
        if report_todo.is_empty() && opening_todo.is_empty() {
            continue;
        }
        let cx = EntryCtx {
            dir,
            templates,
            config: &config,
            scenario: &scenario,
            names: &names,
            entries: head.entries,
            now,
        };
        out.messages
            .extend(mail_entry(&cx, n, name, &report_todo, &opening_todo)?);
        // Marked for everyone asked, so an entry kind with no report
        // is not read again on every run.
        for w in &report_todo {
            mailed.mark(Item::Report, name, w);
        }
        for w in &opening_todo {
            mailed.mark(Item::Opening, name, w);
        }
        mailed::save(dir, &mailed)?;
    }
    if mailed.converted() {
        mailed::save(dir, &mailed)?;
    }
    Ok(out)
}

/// Deliver the outbox; (messages sent, lines for the moderator).
pub fn deliver(dir: &GameDir, now: DateTime<Utc>) -> Result<(usize, Vec<String>)> {
    let config = dir.load_config()?;
    let sender = transport::sender(dir, &config.mail.transport)?;
    let mut sent = 0;
    let mut attention = Vec::new();
    for d in transport::send_all(dir, Some(&sender), &[], now)? {
        if let Delivery::Sent { .. } = d {
            sent += 1;
        }
        attention.extend(attention_line(&d));
    }
    Ok((sent, attention))
}

/// What the moderator must hear of a delivery, if anything. A message
/// refused for good is told once, when refused (with a mail to the
/// moderator); held since, it is not reported again on every run.
pub fn attention_line(d: &Delivery) -> Option<String> {
    match d {
        Delivery::Failed { id, error } => Some(format!("sending {id} failed (left queued): {error}")),
        Delivery::Held { id } => Some(format!(
            "message {id} is held: an earlier send was interrupted; check and `empereur send --release {id}`"
        )),
        Delivery::Refused { id, error } => Some(format!(
            "{id} refused for good by the mail server (held; fix the address and `empereur send --release {id}`, or `empereur send --drop {id}`): {error}"
        )),
        Delivery::Sent { .. }
        | Delivery::StillRefused { .. }
        | Delivery::Dropped { .. }
        | Delivery::Dismissed { .. }
        | Delivery::WouldSend { .. } => None,
    }
}

/// What `empereur mail` and `empereur resend` queued and delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailRun {
    pub queued: Asked,
    /// What the delivery did: `None` with `--no-send`; an error (as the
    /// moderator reads it) when it failed after the mail was queued.
    pub delivered: Option<Result<Delivered, String>>,
}

/// What was queued, for what the moderator asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Asked {
    /// `mail`: messages for so many history entries.
    Entries { messages: usize, entries: usize },
    /// `resend`: messages for one power.
    Power { messages: usize, power: PowerId },
}

/// The outbox delivered: messages sent, lines for the moderator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    pub sent: usize,
    pub attention: Vec<String>,
}

impl std::fmt::Display for MailRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.queued {
            Asked::Entries { messages, entries } => writeln!(
                f,
                "queued {messages} message(s) for {entries} history entr{}",
                if *entries == 1 { "y" } else { "ies" }
            )?,
            Asked::Power { messages, power } => writeln!(f, "queued {messages} message(s) for {}", power.name())?,
        }
        if let Some(Ok(d)) = &self.delivered {
            writeln!(f, "sent {} message(s)", d.sent)?;
            d.attention.iter().try_for_each(|l| writeln!(f, "{l}"))?;
        }
        Ok(())
    }
}

impl super::Summary for MailRun {
    /// No when a message needs the moderator's attention.
    fn done(&self) -> Done {
        match &self.delivered {
            Some(Ok(d)) if !d.attention.is_empty() => Done::No,
            _ => Done::Yes,
        }
    }

    fn failure(&self) -> Option<String> {
        match &self.delivered {
            Some(Err(e)) => Some(e.clone()),
            _ => None,
        }
    }
}

/// Deliver the outbox unless `no_send`, keeping a failure for the
/// moderator after what was queued.
fn deliver_unless(no_send: bool, dir: &GameDir, now: DateTime<Utc>) -> Option<Result<Delivered, String>> {
    (!no_send).then(|| {
        deliver(dir, now)
            .map(|(sent, attention)| Delivered { sent, attention })
            .map_err(|e| format!("{e:#}"))
    })
}

/// `empereur mail`
pub fn mail(a: &MailArgs) -> Result<MailRun> {
    let dir = GameDir::new(&a.game);
    let now = clock::now()?;
    let _lock = dir.lock()?;
    super::resolve::recover(&dir)?;
    let templates = Templates::load(&dir.root)?;
    let q = mail_pending(&dir, &templates, now)?;
    let entries: BTreeSet<&str> = q.messages.iter().map(|m| m.1.as_str()).collect();
    Ok(MailRun {
        queued: Asked::Entries {
            messages: q.messages.len(),
            entries: entries.len(),
        },
        delivered: deliver_unless(a.no_send, &dir, now),
    })
}

/// Which entry `resend` means: by number or name, or the last.
fn pick_entry(dir: &GameDir, entry: Option<&str>) -> Result<Option<String>> {
    let names = history::list(dir)?;
    let head = history::read_head(dir)?;
    let Some(e) = entry else {
        return Ok((!head.last.is_empty()).then_some(head.last));
    };
    let found = match e.trim().parse::<u32>() {
        Ok(n) => names.get(&n).cloned(),
        Err(_) => names.values().find(|v| v.as_str() == e.trim()).cloned(),
    };
    match found {
        Some(n)
            if n.get(..4)
                .and_then(|d| d.parse::<u32>().ok())
                .is_some_and(|k| k <= head.entries) =>
        {
            Ok(Some(n))
        }
        _ => bail!(
            "no history entry '{e}' (entries 1 to {}; `ls history/` lists them)",
            head.entries
        ),
    }
}

/// Queue again, for one power, an entry's report and the opening it
/// made (or the first phase's opening when `entry` is `None` and nothing
/// was resolved yet). Returns the message ids queued.
pub fn resend_game(dir: &GameDir, power: PowerId, entry: Option<&str>, now: DateTime<Utc>) -> Result<Vec<String>> {
    resend_parts(dir, power, entry, (true, true), now)
}

/// A player's `RESEND [REPORT|OPENING] [phase]` by mail: the report of
/// the phase (its last resolution), or its opening (from the entry that
/// opened it), or both as [`resend_game`] does; without a phase, the
/// last entry's. `item` `None` means both.
pub fn resend_for_player(
    dir: &GameDir,
    power: PowerId,
    phase: Option<&str>,
    item: Option<Item>,
    now: DateTime<Utc>,
) -> Result<Vec<String>> {
    let parts = match item {
        None => (true, true),
        Some(Item::Report) => (true, false),
        Some(Item::Opening) => (false, true),
    };
    let Some(phase) = phase else {
        return resend_parts(dir, power, None, parts, now);
    };
    let ph: crate::ids::PhaseId = phase
        .parse()
        .map_err(|e| anyhow::anyhow!("'{phase}' is not a phase id: {e}"))?;
    let mut found = None;
    for name in history::list(dir)?.into_values() {
        let (rec, _) = history::read_entry(dir, &name)?;
        let hit = match item {
            Some(Item::Opening) => rec.next_phase == Some(ph),
            _ => rec.kind == "resolve" && rec.phase == ph,
        };
        if hit {
            found = Some(name);
        }
    }
    match found {
        Some(name) => resend_parts(dir, power, Some(&name), parts, now),
        None if item == Some(Item::Opening)
            && history::read_head(dir)?.entries == 0
            && dir.load_state()?.phase == ph =>
        {
            resend_parts(dir, power, None, parts, now)
        }
        None => bail!("nothing to resend for phase {ph} (HISTORY lists the phases)"),
    }
}

/// [`resend_game`], choosing the report and/or the opening.
fn resend_parts(
    dir: &GameDir,
    power: PowerId,
    entry: Option<&str>,
    (report, opening): (bool, bool),
    now: DateTime<Utc>,
) -> Result<Vec<String>> {
    let config = dir.load_config()?;
    let scenario = dir.load_scenario(&config)?;
    if !config.players.iter().any(|p| p.power == power) {
        bail!("{power} has no player in this game (it is an NPC)");
    }
    let templates = Templates::load(&dir.root)?;
    let head = history::read_head(dir)?;
    let to = Recipients {
        only: Some(BTreeSet::from([power.id().to_string()])),
        skip: BTreeSet::new(),
        resend: Some(clock::stamp(now)),
    };
    let mut ids = Vec::new();
    match pick_entry(dir, entry)? {
        None if opening => {
            let state = dir.load_state()?;
            let o = opening_of(
                dir,
                &config,
                &state,
                mailed::START,
                store::phase::commitment(dir)?,
                None,
                now,
            )?;
            ids.extend(compose::opening_to(dir, &templates, &config, &scenario, &o, &to, now)?);
        }
        None => {}
        Some(name) => {
            let e = read_entry_mail(dir, &name)?;
            if report {
                ids.extend(queue_report(
                    dir,
                    &templates,
                    &config,
                    &scenario,
                    &e,
                    &to,
                    BTreeMap::new(),
                    now,
                )?);
            }
            if opening
                && let (Some(after), Some(_)) = (&e.after, e.rec.next_phase)
                && after.over.is_none()
            {
                let open_now = name == head.last;
                let names = history::list(dir)?;
                let closed_by = (!open_now).then(|| names.get(&(e.rec.number + 1)).cloned()).flatten();
                let commitment = if open_now {
                    store::phase::commitment(dir)?
                } else {
                    e.rec.next_commitment.clone()
                };
                let o = opening_of(dir, &config, after, &name, commitment, closed_by, now)?;
                ids.extend(compose::opening_to(dir, &templates, &config, &scenario, &o, &to, now)?);
            }
        }
    }
    Ok(ids.into_iter().map(|(_, id)| id).collect())
}

/// `empereur resend`
pub fn resend(a: &ResendArgs) -> Result<MailRun> {
    let power: PowerId = a.power.parse().map_err(anyhow::Error::msg)?;
    let dir = GameDir::new(&a.game);
    let now = clock::now()?;
    let _lock = dir.lock()?;
    super::resolve::recover(&dir)?;
    let ids = resend_game(&dir, power, a.entry.as_deref(), now)?;
    dir.journal_line(
        &clock::stamp(now),
        &format!(
            "moderator resent {} message(s) to {power} ({})",
            ids.len(),
            a.entry.as_deref().unwrap_or("last entry")
        ),
    )?;
    Ok(MailRun {
        queued: Asked::Power {
            messages: ids.len(),
            power,
        },
        delivered: deliver_unless(a.no_send, &dir, now),
    })
}
