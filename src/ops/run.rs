//! `empereur run`: the one command a cron job calls. For each game, under
//! its lock: finish any interrupted resolution; fetch (if IMAP is
//! configured) and ingest new mail; resolve the open phase when it is due
//! (everyone in and the change-of-mind delay passed, or grace over);
//! queue turn reports, phase openings and reminders; send the outbox.
//!
//! Idempotent and crash-safe: every step either is recorded before the
//! next starts (mail archived before it is processed, a resolution
//! committed by its history head, queued mail by its stable id) or is
//! safe to repeat; what a crash interrupted, the next run finishes
//! (`mail/mailed.toml` records, per history entry and recipient, what
//! has been mailed; see `ops::mailing`). Quiet unless something needs the moderator.
#![allow(clippy::disallowed_methods)] // adapter

use super::ingest::Source;
use super::progress::Progress;
use super::resolve::{self, ResolveOptions, Resolved};
use super::workflow::{ensure_clock_of, submitted};
use super::{Done, clock, mailing};
use crate::ids::PowerId;
use crate::mail::compose;
use crate::mail::ingest::{self, GameCtx, Run};
use crate::mail::transport::{self, Delivery};
use crate::schedule::Due;
use crate::store::{self, GameConfig, GameDir};
use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct RunArgs {
    /// The game directory.
    pub game: Option<PathBuf>,
    /// A directory of games: run each one (one failing game never stops the others).
    pub games: Option<PathBuf>,
    /// A Maildir to read new messages from (each message is processed once).
    pub maildir: Option<PathBuf>,
}

/// What one run did for one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunReport {
    pub game: String,
    pub ingested: usize,
    /// History entries written by resolutions in this run.
    pub resolved: Vec<String>,
    pub late: Vec<PowerId>,
    pub reminders: Vec<PowerId>,
    pub sent: usize,
    /// Lines the moderator should read.
    pub attention: Vec<String>,
    /// Operational failures that did not stop the run (the rest of it
    /// was done); the command exits 2 after every game has run.
    pub failures: Vec<String>,
    pub over: Option<String>,
}

/// One game's end of a run, handed to the caller as soon as that game is
/// done, so a run over many games reports as it goes.
pub enum GameRan<'a> {
    Ran(&'a RunReport),
    /// The game could not be run at all.
    Failed {
        dir: &'a Path,
        error: &'a anyhow::Error,
    },
}

impl RunReport {
    /// What was done, for `--verbose`.
    pub fn counts(&self) -> String {
        format!(
            "{} message(s) in, {} phase(s) resolved{}, {} reminder(s), {} sent",
            self.ingested,
            self.resolved.len(),
            if self.late.is_empty() {
                String::new()
            } else {
                format!(
                    " (late: {})",
                    self.late.iter().map(|p| p.id()).collect::<Vec<_>>().join(", ")
                )
            },
            self.reminders.len(),
            self.sent
        )
    }
}

/// Run every game; `each` is told how each one went (`cli` prints it).
/// Fails after the last game when any game failed.
pub fn run(
    a: &RunArgs,
    each: &mut dyn FnMut(GameRan<'_>) -> std::io::Result<()>,
    progress: &mut dyn Progress,
) -> Result<Done> {
    let now = clock::now()?;
    let games: Vec<PathBuf> = match (&a.game, &a.games) {
        (Some(g), None) => vec![g.clone()],
        (None, Some(root)) => game_dirs(root)?,
        (None, None) => vec![PathBuf::from(".")],
        _ => bail!("say --game DIR or --games DIR, not both"),
    };
    // The Maildir is read one message at a time (never whole), and each
    // new message is routed to one game before the games run.
    let routed = match &a.maildir {
        Some(m) => route_maildir(m, &games, a.games.as_deref(), now)?,
        None => BTreeMap::new(),
    };
    let mut failed = 0;
    progress.start(games.len() as u64, "run --games");
    // One group over every game: what a game writes after its last
    // barrier is made durable with the next game's barrier, not by a pass
    // of its own (each game still reaches its commit points durably).
    let group = store::durable::group();
    // Games at the same position (a first run opens the same phase of
    // the same scenario in each) share the base of each view's picture
    // instead of rendering it again per game.
    let pictures = crate::picture::hold();
    for g in &games {
        progress.step();
        let incoming: Vec<Source> = routed
            .get(g)
            .map(|v| v.iter().cloned().map(Source::File).collect())
            .unwrap_or_default();
        match run_game_sources(g, &incoming, now) {
            Ok(r) => {
                if !r.failures.is_empty() {
                    failed += 1;
                }
                each(GameRan::Ran(&r))?;
            }
            Err(e) => {
                failed += 1;
                each(GameRan::Failed { dir: g, error: &e })?;
            }
        }
    }
    progress.finish();
    drop(pictures);
    group.commit()?;
    if failed > 0 {
        bail!("{failed} of {} game(s) failed", games.len());
    }
    Ok(Done::Yes)
}

/// The game directories under `root` (those holding a game.toml), sorted.
pub fn game_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    ingest::game_dirs(root)
}

/// Which game each new message of the Maildir `maildir` goes to. With
/// one game (`--game`), every message but those whose GAME line names
/// another game. With a host (`--games ROOT`), each message is archived
/// in the host's inbox first (so a message processed before is skipped
/// after one hash) and routed by `mail::ingest::route`: its GAME line,
/// the game address it was sent to, or the one game its sender plays
/// in; a message no game takes is answered by the host, never dropped.
fn route_maildir(
    maildir: &Path,
    games: &[PathBuf],
    host: Option<&Path>,
    now: DateTime<Utc>,
) -> Result<BTreeMap<PathBuf, Vec<PathBuf>>> {
    let files = ingest::maildir_files(maildir)?;
    let mut out: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    let Some(root) = host else {
        if let Some(g) = games.first() {
            out.insert(g.clone(), files);
        }
        return Ok(out);
    };
    let hostdir = GameDir::new(root);
    let inbox = hostdir.inbox();
    let mut table = Vec::new();
    let mut dirs = BTreeMap::new();
    let mut address = None;
    for g in games {
        // A game whose game.toml cannot be read gets no mail; its own run
        // reports why.
        let dir = GameDir::new(g);
        if let Ok(config) = dir.load_config() {
            address.get_or_insert_with(|| config.mail_address().to_string());
            dirs.insert(config.game.clone(), g.clone());
            table.push(ingest::GameAddr::of(&dir, &config));
        }
    }
    let address = address.unwrap_or_else(|| "empereur@localhost".into());
    let mut mrun = Run::new(now);
    for f in files {
        let raw = std::fs::read(&f).with_context(|| format!("cannot read {}", f.display()))?;
        let hash = crate::mail::sha256_hex(&raw);
        if crate::mail::archive::is_done(&inbox, &hash) {
            continue;
        }
        crate::mail::archive::archive(&inbox, &raw)?;
        let inc = crate::mail::parse::parse(&raw);
        match ingest::route(&table, &inc) {
            ingest::Route::Game(id) => out.entry(dirs[&id].clone()).or_default().push(f),
            ingest::Route::Refused(r) => {
                let from = inc.from.clone().unwrap_or_default();
                let player = table.iter().any(|g| g.players.contains(&from));
                ingest::refuse_unrouted(
                    &hostdir,
                    &address,
                    &ingest::Received {
                        raw: &raw,
                        hash: &hash,
                        inc: &inc,
                    },
                    r,
                    player,
                    &mut mrun,
                )?;
            }
        }
        // Routed: the game archives and processes it under its lock; a
        // crash before that leaves it in the Maildir, and the game's
        // pending queue or the next run finds it.
        mrun.mark_processed(&inbox, &hash);
    }
    mrun.flush()?;
    if hostdir.outbox().is_dir() {
        // Replies of the host go out with the first game's transport.
        if let Some(g) = games.first()
            && let Ok(cfg) = GameDir::new(g).load_config()
        {
            let sender = transport::sender(&hostdir, &cfg.mail.transport)?;
            transport::send_all(&hostdir, Some(&sender), &[], now)?;
        }
    }
    Ok(out)
}

/// One run over one game at `now`. `incoming` are raw messages from the
/// moderator's Maildir; those whose GAME line names another game are
/// left for it (see `mail::ingest`).
pub fn run_game(root: &Path, incoming: &[Vec<u8>], now: DateTime<Utc>) -> Result<RunReport> {
    let sources: Vec<Source> = incoming.iter().cloned().map(Source::Bytes).collect();
    run_game_sources(root, &sources, now)
}

/// As [`run_game`], with messages read one at a time when their turn
/// comes (a Maildir is never held in memory). The lock is taken before
/// the game is read, so a message is checked against the state it will
/// be stored in.
pub fn run_game_sources(root: &Path, incoming: &[Source], now: DateTime<Utc>) -> Result<RunReport> {
    // The quick path: nothing due by the clock, no file changed since the
    // last full run, no mail for this game: nothing to load or write.
    let dir = GameDir::new(root);
    if let Some(game) = store::wake::quiet(&dir, now)
        && !has_mail_for(&dir, incoming, &game)?
    {
        return Ok(RunReport {
            game,
            ..RunReport::default()
        });
    }
    // One group commit for the whole run: fsyncs wait for the commit
    // points (messages marked processed, the history head, the batch of
    // mail sent). Inside `run --games`, the last writes of one game wait
    // for the next game's first barrier (see `durable::Group::finish`).
    let group = store::durable::group();
    let report = run_game_grouped(&dir, incoming, now);
    // Whatever stopped the run, the canvas of its pictures (11 MiB) is
    // not kept for the next game or the next run's password checks
    // (unless `run --games` holds it for the games that follow).
    crate::picture::release();
    let report = report?;
    group.finish()?;
    Ok(report)
}

/// When the next run has something to do by the clock alone (see
/// `store::wake`); `None`: only a file change can make anything due.
fn next_wake(
    dir: &GameDir,
    config: &GameConfig,
    scenario: &crate::scenario::Scenario,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>> {
    let Some(pclock) = dir.load_clock()? else {
        return Ok(Some(now));
    };
    let state = dir.load_state()?;
    let schedule = dir.load_schedule()?;
    let subs = submitted(dir)?;
    // The change-of-mind delay matters once every power that must order
    // is in; only their submissions restart it (schedule::change_of_mind_until).
    let must = crate::rules::roles(scenario, &state).must;
    let all_in = must.iter().all(|p| subs.contains_key(p));
    let until = all_in.then(|| crate::schedule::change_of_mind_until(pclock.opened, &config.deadlines, &must, &subs));
    Ok(store::wake::next_change(
        &pclock,
        now,
        &config.deadlines,
        config.tz(),
        &schedule.absences,
        until,
    ))
}

fn run_game_grouped(dir: &GameDir, incoming: &[Source], now: DateTime<Utc>) -> Result<RunReport> {
    let _lock = dir.lock()?;
    store::wake::clear(dir);
    let rec = resolve::recover(dir)?;
    // Loaded once for the run (after recovery, which may finish a
    // resolution); reloaded only after this run resolves a phase.
    let ctx = GameCtx::load(&dir.root)?;
    let mut report = RunReport {
        game: ctx.config.game.clone(),
        ..RunReport::default()
    };
    report
        .attention
        .extend(rec.lines.iter().map(|l| format!("recovered: {l}")));
    // 1. Mail in.
    mail_in(&ctx, incoming, now, &mut report)?;
    // 2. Mail every history entry not mailed yet, in order: phases
    //    resolved by hand, autoplay and undo since the last run, or what
    //    a crash stopped an earlier run from mailing.
    mailing::mail_pending(&ctx.dir, &ctx.templates, now)?;
    // 3. and 4. Resolve when due, or remind.
    let beacon_at = match &ctx.state.over {
        Some(w) => {
            report.over = Some(w.clone());
            None
        }
        None => advance(&ctx, now, &mut report)?,
    };
    // 5. Mail out, the pictures composed: their canvas (11 MiB) is given
    // back first, as sending holds a message at a time (kept instead
    // while `run --games` holds it for the games that follow).
    crate::picture::release();
    send_out(&ctx.dir, &ctx.config, now, &mut report)?;
    save_wake(&ctx, now, beacon_at, &report)?;
    Ok(report)
}

/// Mail in: IMAP (if configured), the Maildir, anything archived but not
/// yet processed.
fn mail_in(ctx: &GameCtx, incoming: &[Source], now: DateTime<Utc>, report: &mut RunReport) -> Result<()> {
    let dir = &ctx.dir;
    let mut mrun = Run::new(now);
    if let Some(imap) = ctx.config.mail.imap.clone() {
        let fetched = crate::mail::fetch::fetch_new(&imap, &dir.root, |raw| {
            ingest::ingest_game(ctx, raw, &mut mrun).map(|_| ())
        });
        if let Err(e) = fetched {
            report
                .attention
                .push(format!("fetching mail failed (will retry): {e:#}"));
        }
    }
    for src in incoming {
        let raw = src.read()?;
        // Processed before: skipped after one hash, without a word.
        if crate::mail::archive::is_done(&dir.inbox(), &crate::mail::sha256_hex(&raw)) {
            continue;
        }
        if for_this_game(&raw, &ctx.config.game) {
            let h = ingest::ingest_game(ctx, &raw, &mut mrun)?;
            if !matches!(h.verdict, ingest::Verdict::Duplicate) {
                report.ingested += 1;
            }
        }
    }
    // Mark what was just processed before looking for what was not.
    mrun.flush()?;
    report.ingested += ingest::ingest_pending(ctx, &mut mrun)?.len();
    mrun.flush()
}

/// Resolve the open phase when it is due (at most one phase a run: the
/// next phase's players need their phase-opening mail first), or remind
/// those who have not ordered. Returns when the beacon round the phase
/// waits for is published, if it waits for one.
fn advance(ctx: &GameCtx, now: DateTime<Utc>, report: &mut RunReport) -> Result<Option<DateTime<Utc>>> {
    let (dir, config, state) = (&ctx.dir, &ctx.config, &ctx.state);
    let tz = config.tz();
    let schedule = dir.load_schedule()?;
    let pclock = ensure_clock_of(dir, config, state.phase, now)?;
    let roles = crate::rules::roles(&ctx.scenario, state);
    let subs = submitted(dir)?;
    let due = pclock.due(now, &config.deadlines, tz, &schedule.absences, &roles.must, &subs);
    // Issue 33: no early close while a power owes an answer this phase.
    let awaited = compose::awaited_from(&compose::awaited_answers(dir, config, state.phase)?);
    let deadline = pclock.deadline(now, &config.deadlines, tz, &schedule.absences);
    let due = crate::schedule::hold_for_answers(due, deadline, now, &awaited);
    let said = schedule.readiness_in(state.phase);
    let due = crate::schedule::with_readiness(due, deadline, now, &roles.must, &said);
    let late = match &due {
        Due::Early => Some(Vec::new()),
        Due::Late { missing } => Some(missing.clone()),
        _ => None,
    };
    let Some(late) = late else {
        if !matches!(due, Due::Paused) {
            let missing: Vec<PowerId> = roles.must.iter().copied().filter(|p| !subs.contains_key(p)).collect();
            remind(ctx, pclock, &schedule, &missing, &due, now, report)?;
        }
        return Ok(None);
    };
    // docs/dice.md 2a: a phase whose commitment names a beacon round
    // waits for it; the lock goes out only once the round is in. Waiting
    // for it: no lock, no resolution, and no reminders (the deadline has
    // passed or everyone is in).
    match resolve::phase_beacon(dir, config, now, None) {
        Ok(resolve::PhaseBeacon::Wait { network, round, at }) => {
            report
                .attention
                .push(resolve::waiting_line(state.phase, &network, round, at));
            Ok(Some(at))
        }
        Ok(resolve::PhaseBeacon::Ready(v)) => resolve_due(ctx, schedule, late, Some(v), now, report).map(|()| None),
        Ok(resolve::PhaseBeacon::None) => resolve_due(ctx, schedule, late, None, now, report).map(|()| None),
        Err(e) => {
            report
                .failures
                .push(format!("{} waits: the dice beacon: {e:#}", state.phase));
            Ok(None)
        }
    }
}

/// Resolve the open phase, which is due: late powers counted, then the
/// resolution, the new phase's clock and its mail (the report with the
/// orders lock, and the next phase's opening).
fn resolve_due(
    ctx: &GameCtx,
    mut schedule: crate::store::clock::Schedule,
    late: Vec<PowerId>,
    beacon: Option<crate::dice::BeaconValue>,
    now: DateTime<Utc>,
    report: &mut RunReport,
) -> Result<()> {
    let (dir, config, state) = (&ctx.dir, &ctx.config, &ctx.state);
    for p in &late {
        *schedule.lateness.entry(*p).or_default() += 1;
    }
    let opts = ResolveOptions {
        phase: Some(state.phase.to_string()),
        manual_dice: None,
        now: Some(clock::stamp(now)),
        late: late.clone(),
        beacon: beacon.clone(),
    };
    // The orders lock is kept in the entry and shown in every report
    // (docs/dice.md 7), not mailed apart.
    match resolve::resolve_game_locked(dir, &opts)? {
        Resolved::Done(s) => {
            dir.save_schedule(&schedule)?;
            if !late.is_empty() {
                report.attention.push(format!(
                    "{} resolved; late, defaults applied: {}",
                    s.resolved,
                    late.iter().map(|p| p.id()).collect::<Vec<_>>().join(", ")
                ));
            }
            dir.journal_line(
                &clock::stamp(now),
                &format!("run: resolved {} -> history/{}", s.resolved, s.entry),
            )?;
            report.resolved.push(s.entry);
            report.attention.extend(super::site::refresh_locked(dir));
            report.late = late;
            report.over = s.over;
            // The new phase's clock starts now.
            let after = dir.load_state()?;
            ensure_clock_of(dir, config, after.phase, now)?;
            mailing::mail_pending(dir, &ctx.templates, now)?;
        }
        Resolved::Refused(why) => report.attention.push(format!("not resolved: {why}")),
    }
    Ok(())
}

/// Remind the powers in `missing` whose reminder is due, and those owing
/// an answer to a proposal of the phase (issue 33).
fn remind(
    ctx: &GameCtx,
    mut pclock: crate::schedule::PhaseClock,
    schedule: &crate::store::clock::Schedule,
    missing: &[PowerId],
    due: &Due,
    now: DateTime<Utc>,
    report: &mut RunReport,
) -> Result<()> {
    let (dir, config) = (&ctx.dir, &ctx.config);
    let tz = config.tz();
    // Issue 33: a power owing an answer is reminded of it in the same
    // slots as a power missing its orders.
    let awaited = compose::awaited_answers(dir, config, ctx.state.phase)?;
    let owing = compose::awaited_from(&awaited);
    let mut ask = missing.to_vec();
    ask.extend(owing.iter().filter(|p| !missing.contains(p)));
    let due_now = pclock.reminders_due(now, &config.deadlines, tz, &schedule.absences, &ask);
    if due_now.is_empty() {
        return Ok(());
    }
    let deadline = pclock.deadline(now, &config.deadlines, tz, &schedule.absences);
    // Past the deadline the reminder says when grace ends.
    let grace_ends = match due {
        Due::Grace { ends } => Some(*ends),
        _ => None,
    };
    // Before it, the reminder says when grace would end and what applies
    // then: the first day of grace gets no reminder of its own.
    let grace = chrono::Duration::hours(i64::from(config.deadlines.grace_hours));
    let grace_after = (now < deadline && grace > chrono::Duration::zero()).then(|| deadline + grace);
    let when = compose::ReminderTimes {
        deadline: Some(deadline),
        grace_ends,
        grace_after,
    };
    let orders_due: Vec<PowerId> = due_now.iter().copied().filter(|p| missing.contains(p)).collect();
    compose::reminders_in(dir, &ctx.templates, config, &ctx.state, &orders_due, &when, now)?;
    let answers_due: Vec<PowerId> = due_now.iter().copied().filter(|p| owing.contains(p)).collect();
    crate::mail::answer_reminder::queue(dir, config, &ctx.state, &answers_due, &awaited, when.deadline, now)?;
    for p in &due_now {
        pclock.reminded.entry(*p).or_default().push(now);
    }
    dir.save_clock(&pclock)?;
    report.reminders = due_now;
    Ok(())
}

/// Send the outbox; what went wrong is for the moderator.
fn send_out(dir: &GameDir, config: &GameConfig, now: DateTime<Utc>, report: &mut RunReport) -> Result<()> {
    let sender = transport::sender(dir, &config.mail.transport)?;
    for d in transport::send_all(dir, Some(&sender), &[], now)? {
        if let Delivery::Sent { .. } = d {
            report.sent += 1;
        }
        report.attention.extend(mailing::attention_line(&d));
    }
    Ok(())
}

/// Nothing left to do until the clock says so or a file changes (mail
/// over IMAP can come at any time): when the next run has work
/// (`store::wake`).
fn save_wake(ctx: &GameCtx, now: DateTime<Utc>, beacon_at: Option<DateTime<Utc>>, report: &RunReport) -> Result<()> {
    if ctx.config.mail.imap.is_some() {
        return Ok(());
    }
    let at = match report.over {
        Some(_) => None,
        None => next_wake(&ctx.dir, &ctx.config, &ctx.scenario, now)?,
    };
    // A phase waiting for its beacon round is due again when it is out
    // (a relay that failed: at the next run).
    let at = match (at, beacon_at) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let at = if report.failures.is_empty() { at } else { Some(now) };
    store::wake::save(&ctx.dir, &ctx.config.game, at);
    Ok(())
}

/// Whether any of `incoming` is new mail for this game (read one at a
/// time; a message processed before is skipped after one hash).
fn has_mail_for(dir: &GameDir, incoming: &[Source], game: &str) -> Result<bool> {
    for src in incoming {
        let raw = src.read()?;
        if !crate::mail::archive::is_done(&dir.inbox(), &crate::mail::sha256_hex(&raw)) && for_this_game(&raw, game) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether a raw message is for this game: its GAME line names it, or
/// it has none (then the game's own ingest decides and answers).
fn for_this_game(raw: &[u8], game: &str) -> bool {
    let inc = crate::mail::parse::parse(raw);
    match inc
        .text
        .as_ref()
        .and_then(|(t, _)| crate::mail::prescan::prescan(t).game)
    {
        Some(named) => named.eq_ignore_ascii_case(game),
        None => true,
    }
}
