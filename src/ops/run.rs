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
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug, Clone)]
#[command(
    after_help = "Examples:\n  empereur run --game campaign\n  empereur run --games /srv/empereur --maildir ~/Maildir\n\ncrontab:\n  * * * * *  empereur run --games /srv/empereur --maildir /var/mail/empereur-maildir\n\nQuiet unless something needs the moderator; exit 2 only for operational failures."
)]
pub struct RunArgs {
    /// The game directory.
    #[arg(long, short = 'g', conflicts_with = "games")]
    pub game: Option<PathBuf>,
    /// A directory of games: run each one (one failing game never stops the others).
    #[arg(long)]
    pub games: Option<PathBuf>,
    /// A Maildir to read new messages from (each message is processed once).
    #[arg(long)]
    pub maildir: Option<PathBuf>,
    /// Say what was done, not only what needs the moderator.
    #[arg(long, short = 'v')]
    pub verbose: bool,
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
    pub over: Option<String>,
}

pub fn run(a: &RunArgs) -> Result<Done> {
    let now = clock::now()?;
    let games: Vec<PathBuf> = match (&a.game, &a.games) {
        (Some(g), None) => vec![g.clone()],
        (None, Some(root)) => game_dirs(root)?,
        (None, None) => vec![PathBuf::from(".")],
        _ => bail!("say --game DIR or --games DIR, not both"),
    };
    let incoming = match &a.maildir {
        Some(m) => ingest::maildir_files(m)?
            .iter()
            .map(|f| std::fs::read(f).with_context(|| format!("cannot read {}", f.display())))
            .collect::<Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    let mut failed = 0;
    for g in &games {
        match run_game(g, &incoming, now) {
            Ok(r) => {
                for line in &r.attention {
                    println!("{}: {line}", r.game);
                }
                if a.verbose {
                    println!(
                        "{}: {} message(s) in, {} phase(s) resolved{}, {} reminder(s), {} sent",
                        r.game,
                        r.ingested,
                        r.resolved.len(),
                        if r.late.is_empty() {
                            String::new()
                        } else {
                            format!(
                                " (late: {})",
                                r.late.iter().map(|p| p.id()).collect::<Vec<_>>().join(", ")
                            )
                        },
                        r.reminders.len(),
                        r.sent
                    );
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("{}: error: {e:#}", g.display());
            }
        }
    }
    if failed > 0 {
        bail!("{failed} of {} game(s) failed", games.len());
    }
    Ok(Done::Yes)
}

/// The game directories under `root` (those holding a game.toml), sorted.
pub fn game_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root).with_context(|| format!("cannot read {}", root.display()))? {
        let p = e?.path();
        if p.join("game.toml").is_file() {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// One run over one game at `now`. `incoming` are raw messages from the
/// moderator's Maildir; those for other games are left for them (a
/// message names its game; see `mail::ingest`).
pub fn run_game(root: &Path, incoming: &[Vec<u8>], now: DateTime<Utc>) -> Result<RunReport> {
    // The quick path: nothing due by the clock, no file changed since the
    // last full run, no mail for this game: nothing to load or write.
    let dir = GameDir::new(root);
    if let Some(game) = store::wake::quiet(&dir, now)
        && !incoming.iter().any(|raw| for_this_game(raw, &game))
    {
        return Ok(RunReport {
            game,
            ..RunReport::default()
        });
    }
    // One group commit for the whole run: fsyncs wait for the commit
    // points (messages marked processed, the history head, each send).
    let group = store::durable::group();
    let report = run_game_grouped(&dir, incoming, now)?;
    group.commit()?;
    Ok(report)
}

/// When the next run has something to do by the clock alone (see
/// `store::wake`); `None`: only a file change can make anything due.
fn next_wake(dir: &GameDir, config: &GameConfig, now: DateTime<Utc>) -> Result<Option<DateTime<Utc>>> {
    let Some(pclock) = dir.load_clock()? else {
        return Ok(Some(now));
    };
    let schedule = dir.load_schedule()?;
    let last = submitted(dir)?.values().max().copied();
    Ok(store::wake::next_change(
        &pclock,
        now,
        &config.deadlines,
        config.tz(),
        &schedule.absences,
        last,
    ))
}

fn run_game_grouped(dir: &GameDir, incoming: &[Vec<u8>], now: DateTime<Utc>) -> Result<RunReport> {
    let _lock = dir.lock()?;
    store::wake::clear(dir);
    let rec = resolve::recover(dir)?;
    // Loaded once for the run (after recovery, which may finish a
    // resolution); reloaded only after this run resolves a phase.
    let ctx = GameCtx::load(&dir.root)?;
    let dir = &ctx.dir;
    let config = &ctx.config;
    let mut report = RunReport {
        game: config.game.clone(),
        ..RunReport::default()
    };
    report
        .attention
        .extend(rec.lines.iter().map(|l| format!("recovered: {l}")));

    // 1. Mail in: IMAP (if configured), the Maildir, anything archived but
    //    not yet processed.
    let mut mrun = Run::new(now);
    if let Some(imap) = ctx.config.mail.imap.clone() {
        let fetched = crate::mail::fetch::fetch_new(&imap, &dir.root, |raw| {
            ingest::ingest_game(&ctx, raw, &mut mrun).map(|_| ())
        });
        if let Err(e) = fetched {
            report
                .attention
                .push(format!("fetching mail failed (will retry): {e:#}"));
        }
    }
    for raw in incoming {
        if for_this_game(raw, &ctx.config.game) {
            let h = ingest::ingest_game(&ctx, raw, &mut mrun)?;
            if !matches!(h.verdict, ingest::Verdict::Duplicate) {
                report.ingested += 1;
            }
        }
    }
    // Mark what was just processed before looking for what was not.
    mrun.flush()?;
    report.ingested += ingest::ingest_pending(&ctx, &mut mrun)?.len();
    mrun.flush()?;

    // 2. Mail every history entry not mailed yet, in order: phases
    //    resolved by hand, autoplay and undo since the last run, or what
    //    a crash stopped an earlier run from mailing.
    let templates = &ctx.templates;
    let scenario = &ctx.scenario;
    mailing::mail_pending(dir, templates, now)?;

    // 3. Resolve when due (at most one phase a run: the next phase's
    //    players need their phase-opening mail first).
    let state = &ctx.state;
    if let Some(w) = &state.over {
        report.over = Some(w.clone());
    } else {
        let tz = config.tz();
        let mut schedule = dir.load_schedule()?;
        let mut pclock = ensure_clock_of(dir, config, state.phase, now)?;
        let roles = crate::rules::roles(scenario, state);
        let subs = submitted(dir)?;
        let due = pclock.due(now, &config.deadlines, tz, &schedule.absences, &roles.must, &subs);
        let late = match &due {
            Due::Early => Some(Vec::new()),
            Due::Late { missing } => Some(missing.clone()),
            _ => None,
        };
        if let Some(late) = late {
            for p in &late {
                *schedule.lateness.entry(*p).or_default() += 1;
            }
            let opts = ResolveOptions {
                phase: Some(state.phase.to_string()),
                manual_dice: None,
                now: Some(clock::stamp(now)),
                late: late.clone(),
            };
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
                    report.late = late;
                    report.over = s.over;
                    // The new phase's clock starts now.
                    let after = dir.load_state()?;
                    ensure_clock_of(dir, config, after.phase, now)?;
                    mailing::mail_pending(dir, templates, now)?;
                }
                Resolved::Refused(why) => report.attention.push(format!("not resolved: {why}")),
            }
        } else if !matches!(due, Due::Paused) {
            // 4. Reminders to those who have not ordered.
            let missing: Vec<PowerId> = roles.must.iter().copied().filter(|p| !subs.contains_key(p)).collect();
            let due_now = pclock.reminders_due(now, &config.deadlines, tz, &schedule.absences, &missing);
            if !due_now.is_empty() {
                let deadline = pclock.deadline(now, &config.deadlines, tz, &schedule.absences);
                let local = |t: DateTime<Utc>| t.with_timezone(&tz).format("%a %Y-%m-%d %H:%M %Z").to_string();
                // Past the deadline the reminder says when grace ends.
                let grace_ends = match due {
                    Due::Grace { ends } => Some(local(ends)),
                    _ => None,
                };
                compose::reminders_in(
                    dir,
                    templates,
                    config,
                    state,
                    &due_now,
                    Some(local(deadline)),
                    grace_ends,
                    now,
                )?;
                for p in &due_now {
                    pclock.reminded.entry(*p).or_default().push(now);
                }
                dir.save_clock(&pclock)?;
                report.reminders = due_now;
            }
        }
    }

    // 5. Mail out.
    let sender = transport::sender(dir, &config.mail.transport)?;
    for d in transport::send_all(dir, Some(&sender), &[], now)? {
        match d {
            Delivery::Sent { .. } => report.sent += 1,
            Delivery::Failed { id, error } => report
                .attention
                .push(format!("sending {id} failed (left queued): {error}")),
            Delivery::Held { id } => report.attention.push(format!(
                "message {id} is held: an earlier send was interrupted; check and `empereur send --release {id}`"
            )),
            Delivery::WouldSend { .. } => {}
        }
    }
    // Nothing left to do until the clock says so or a file changes (mail
    // over IMAP can come at any time).
    if config.mail.imap.is_none() {
        let at = match report.over {
            Some(_) => None,
            None => next_wake(dir, config, now)?,
        };
        store::wake::save(dir, &config.game, at);
    }
    Ok(report)
}

/// Whether a raw message names this game (its GAME line), or names none
/// (then the game's own ingest decides and answers).
fn for_this_game(raw: &[u8], game: &str) -> bool {
    let text = String::from_utf8_lossy(raw);
    let named: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let head = t.get(..5)?;
            head.eq_ignore_ascii_case("game ").then(|| t[5..].trim())
        })
        .collect();
    named.is_empty() || named.iter().any(|g| g.eq_ignore_ascii_case(game))
}
