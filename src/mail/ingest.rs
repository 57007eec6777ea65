//! Ingest: one raw message in, one decision out, always in this order:
//! archive (fsynced) -> size limit -> parse -> ignore automatic mail ->
//! route (GAME line or recipient) -> authenticate -> check the orders ->
//! store the submission -> queue the reply -> journal -> mark processed.
//! A refused message gets a reply saying exactly why and nothing is
//! stored as orders. A message whose submission could not be stored
//! stays unprocessed (`new/`) and is tried again by the next run.

use super::archive::{self, Stored};
use super::auth::{self, Authenticated, PasswordCache, Refusal};
use super::escape;
use super::guard::Guard;
use super::outbox::{self, Addr, OutMail};
use super::parse::{self, Incoming};
use super::prescan::prescan;
use crate::orders;
use crate::orders::ast::Readiness;
use crate::report::{AckView, Templates};
use crate::scenario::Scenario;
use crate::state::State;
use crate::store::submission::{self, Submission};
use crate::store::{GameConfig, GameDir};
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A game loaded once for a run of many messages.
pub struct GameCtx {
    pub dir: GameDir,
    pub config: GameConfig,
    pub scenario: std::sync::Arc<Scenario>,
    pub state: State,
    pub templates: Templates,
    /// The game's anchor lines (docs/dice.md, "Anchors") as loaded: an
    /// ingest changes neither the history nor the open phase, so every
    /// reply it queues ends with these.
    pub anchors: String,
}

impl GameCtx {
    pub fn load(root: &Path) -> Result<GameCtx> {
        let dir = GameDir::new(root);
        let config = dir.load_config()?;
        let scenario = dir.load_scenario(&config)?;
        let state = dir.load_state_for(&scenario)?;
        let templates = Templates::load(root)?;
        let anchors = crate::store::history::anchors(&dir)?;
        Ok(GameCtx {
            dir,
            config,
            scenario,
            state,
            templates,
            anchors,
        })
    }
}

/// What a run remembers between messages: the clock, verified
/// passwords, each game's phase clock and schedule (read once a run;
/// the schedule kept up to date as messages change it), the mail guard
/// of each game (see `mail::guard`), and the batch not yet committed. Guards, journal lines and the `new/` ->
/// `cur/` moves of processed messages are committed together by
/// [`Run::flush`] (one fsync each per batch, not per message); until then
/// a crash leaves the messages in `new/`, and the next run processes them
/// again (their replies have stable ids).
///
/// Accepted orders wait for the flush too: each power's submission is
/// written once per batch (the last accepted message wins, as if each
/// had been written in turn), and the acknowledgements that announce
/// them are queued only after it, in the order they were decided. So a
/// submission that cannot be stored is never acknowledged (the flush
/// fails, and the batch stays unprocessed in `new/` for the next run),
/// and a power sending ten mails costs one file, not ten replaced ones.
/// Anything that reads the stored orders within the batch (the ORDERS
/// and STATUS commands, a proposal's notices) first writes the game's
/// waiting ones ([`Run::write_waiting`]).
pub struct Run {
    pub now: DateTime<Utc>,
    pub cache: PasswordCache,
    /// Whether a message held in the quarantine is processed again when
    /// it comes in once more. Only when named on purpose (`ingest FILE`,
    /// as the quarantine notice says); a Maildir or mbox read again on
    /// every run would put it aside, journal it and exit 1 each time.
    pub retry_quarantined: bool,
    journal: BTreeMap<PathBuf, (GameDir, Vec<(String, String)>)>,
    done: BTreeMap<PathBuf, Vec<String>>,
    guards: BTreeMap<PathBuf, GuardSlot>,
    waiting: BTreeMap<PathBuf, Waiting>,
    times: BTreeMap<PathBuf, Times>,
    /// Each game's submissions as stored on disk (not those waiting),
    /// read on first use and dropped when this run writes one: every
    /// acknowledgement says who is in, which read and parsed every
    /// power's orders file once a message (issue 37).
    on_disk: BTreeMap<PathBuf, BTreeMap<crate::ids::PowerId, Submission>>,
}

/// A game's phase clock and schedule as this run knows them: read on the
/// first message, then kept (an ingest never moves the clock; a message
/// that changes the schedule saves it and updates this copy).
struct Times {
    /// `None`: no clock, or one that cannot be read (as if none).
    clock: Option<crate::schedule::PhaseClock>,
    schedule: crate::store::clock::Schedule,
    /// The zones a TIMEZONE line of this run set (game.toml is written at
    /// once, but the run reads the configuration it loaded first).
    zones: BTreeMap<crate::ids::PowerId, chrono_tz::Tz>,
}

/// A game's accepted orders not yet written, and the mail that may be
/// queued only once they are.
struct Waiting {
    dir: GameDir,
    /// Each power's last accepted submission, as stored bytes.
    subs: BTreeMap<crate::ids::PowerId, String>,
    /// Acknowledgements, in the order decided.
    after: Vec<outbox::Prepared>,
}

/// A game's guard, loaded once a run, and who gets its digest.
struct GuardSlot {
    dir: GameDir,
    guard: Guard,
    /// As loaded: saved only when changed (a quiet run writes nothing).
    loaded: Guard,
    /// (game id, the game's From, the moderator)
    digest_to: (String, Addr, Addr),
    /// `mail.refused_keep_days` of the game.
    keep_days: u32,
}

impl Run {
    pub fn new(now: DateTime<Utc>) -> Run {
        Run {
            now,
            cache: PasswordCache::default(),
            retry_quarantined: false,
            journal: BTreeMap::new(),
            done: BTreeMap::new(),
            guards: BTreeMap::new(),
            waiting: BTreeMap::new(),
            times: BTreeMap::new(),
            on_disk: BTreeMap::new(),
        }
    }
    /// The submissions of `ctx`'s game as stored on disk, read on first
    /// use and again after this run writes one.
    fn stored(&mut self, ctx: &GameCtx) -> Result<&BTreeMap<crate::ids::PowerId, Submission>> {
        use std::collections::btree_map::Entry;
        Ok(match self.on_disk.entry(ctx.dir.root.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(submission::load_all(&ctx.dir)?),
        })
    }
    /// The top of `power`'s acknowledgement (`compose::ack_standing`),
    /// from this run's copies of the stored submissions and the schedule.
    fn standing(
        &mut self,
        ctx: &GameCtx,
        power: crate::ids::PowerId,
        own: Option<(&[crate::orders::ast::OrderLine], bool)>,
    ) -> Result<String> {
        let schedule = self.times(ctx)?.schedule.clone();
        let record = super::compose::OnRecord {
            stored: self.stored(ctx)?,
            schedule: &schedule,
        };
        Ok(super::compose::ack_standing(
            &ctx.config,
            &ctx.scenario,
            &ctx.state,
            power,
            own,
            &record,
        ))
    }
    /// Write `power`'s submission of the game in `dir`; the copy of the
    /// stored ones is read again when next needed.
    fn write_submission(&mut self, dir: &GameDir, power: crate::ids::PowerId, text: &str) -> Result<()> {
        self.on_disk.remove(&dir.root);
        submission::write(dir, power, text)
    }
    /// The clock and schedule of `ctx`'s game, read on first use.
    fn times(&mut self, ctx: &GameCtx) -> Result<&mut Times> {
        use std::collections::btree_map::Entry;
        Ok(match self.times.entry(ctx.dir.root.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(Times {
                schedule: ctx.dir.load_schedule()?,
                clock: ctx.dir.load_clock().ok().flatten(),
                zones: BTreeMap::new(),
            }),
        })
    }
    /// The zone `power`'s player reads deadlines in: one a TIMEZONE line
    /// of this run set, else theirs in game.toml, else the game's.
    pub(super) fn player_tz(&mut self, ctx: &GameCtx, power: crate::ids::PowerId) -> Result<chrono_tz::Tz> {
        Ok(match self.times(ctx)?.zones.get(&power) {
            Some(tz) => *tz,
            None => ctx.config.player_tz(power),
        })
    }
    /// Save `ctx`'s game's schedule and keep it as this run's copy.
    fn save_schedule(&mut self, ctx: &GameCtx, s: crate::store::clock::Schedule) -> Result<()> {
        ctx.dir.save_schedule(&s)?;
        self.times(ctx)?.schedule = s;
        Ok(())
    }
    fn waiting(&mut self, dir: &GameDir) -> &mut Waiting {
        self.waiting.entry(dir.root.clone()).or_insert_with(|| Waiting {
            dir: dir.clone(),
            subs: BTreeMap::new(),
            after: Vec::new(),
        })
    }
    /// Write the waiting submissions of the game in `dir`, then queue
    /// the acknowledgements waiting for them. On an error what is not
    /// written yet stays waiting (and the batch is not marked processed).
    pub fn write_waiting(&mut self, dir: &GameDir) -> Result<()> {
        let Some(w) = self.waiting.get_mut(&dir.root) else {
            return Ok(());
        };
        while let Some((&power, text)) = w.subs.first_key_value() {
            self.on_disk.remove(&dir.root);
            submission::write(&w.dir, power, text)?;
            w.subs.remove(&power);
        }
        let (mut written, mut failed, mut sent_already) = (0, None, Vec::new());
        for p in &w.after {
            match outbox::write_prepared(&w.dir, p) {
                Ok(q) => {
                    if q == outbox::Queued::AlreadySent {
                        sent_already.push(p.id.clone());
                    }
                    written += 1;
                }
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        w.after.drain(..written);
        if w.after.is_empty() {
            self.waiting.remove(&dir.root);
        }
        for id in sent_already {
            self.log(dir, format!("reply {id} was sent already; not queued again"));
        }
        failed.map_or(Ok(()), Err)
    }
    fn when(&self) -> String {
        self.now.to_rfc3339()
    }
    fn log(&mut self, dir: &GameDir, line: String) {
        let when = self.when();
        self.journal
            .entry(dir.root.clone())
            .or_insert_with(|| (dir.clone(), Vec::new()))
            .1
            .push((when, line));
    }
    fn mark_done(&mut self, inbox: &Path, hash: &str) {
        self.done.entry(inbox.to_path_buf()).or_default().push(hash.to_string());
    }
    /// Mark a message of another inbox (a host's) processed with the batch.
    pub fn mark_processed(&mut self, inbox: &Path, hash: &str) {
        self.mark_done(inbox, hash);
    }
    fn is_done(&self, inbox: &Path, hash: &str) -> bool {
        self.done.get(inbox).is_some_and(|v| v.iter().any(|h| h == hash))
    }
    /// The guard of `ctx`'s game, loaded on first use.
    fn guard(&mut self, ctx: &GameCtx) -> Result<&mut Guard> {
        use std::collections::btree_map::Entry;
        let slot = match self.guards.entry(ctx.dir.root.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let guard = Guard::load(&ctx.dir)?;
                e.insert(GuardSlot {
                    dir: ctx.dir.clone(),
                    loaded: guard.clone(),
                    guard,
                    digest_to: (ctx.config.game.clone(), game_from(ctx), moderator(ctx)),
                    keep_days: ctx.config.mail.refused_keep_days(),
                })
            }
        };
        Ok(&mut slot.guard)
    }
    /// Commit the batch: guards (with the moderator's digest of earlier
    /// days queued), journal lines, then mark the messages processed.
    pub fn flush(&mut self) -> Result<()> {
        let dirs: Vec<GameDir> = self.waiting.values().map(|w| w.dir.clone()).collect();
        for dir in &dirs {
            self.write_waiting(dir)?;
        }
        for (_, slot) in self.guards.iter_mut() {
            // Refused mail past its retention: headers and digest only.
            let inbox = slot.dir.inbox();
            for hash in slot.guard.due_for_trim(slot.keep_days, self.now) {
                if archive::trim(&inbox, &hash, slot.keep_days)? {
                    let line = format!(
                        "archive {}: refused {} or more days ago; body removed, headers and SHA-256 kept",
                        short(&hash),
                        slot.keep_days
                    );
                    self.journal
                        .entry(slot.dir.root.clone())
                        .or_insert_with(|| (slot.dir.clone(), Vec::new()))
                        .1
                        .push((self.now.to_rfc3339(), line));
                }
            }
            for (day, lines) in slot.guard.take_digest(self.now) {
                let (game, from, to) = &slot.digest_to;
                let m = OutMail {
                    id: outbox::stable_id(&["digest", game, &day]),
                    from: from.clone(),
                    to: vec![to.clone()],
                    cc: vec![],
                    subject: format!("Empereur {game}: mail from non-players on {day}"),
                    in_reply_to: None,
                    body: format!(
                        "Messages to game {game} on {day} from senders who are no player (each got one short fixed reply that day, nothing else):\n\n{}\n",
                        lines.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n")
                    ),
                    attachments: vec![],
                    date: self.now,
                };
                outbox::queue(&slot.dir, &m)?;
            }
            if slot.guard != slot.loaded {
                slot.guard.save(&slot.dir)?;
                slot.loaded = slot.guard.clone();
            }
        }
        for (_, (dir, lines)) in std::mem::take(&mut self.journal) {
            dir.journal_lines(&lines)?;
        }
        for (inbox, hashes) in std::mem::take(&mut self.done) {
            archive::mark_done_many(&inbox, &hashes)?;
        }
        Ok(())
    }
    /// Count one more mail answering an authenticated sender to `addr`
    /// against the day's allowance (`mail.max_replies_per_day`); false
    /// when it is used up.
    pub(crate) fn allow_reply(&mut self, ctx: &GameCtx, addr: &str) -> Result<bool> {
        let limit = ctx.config.mail.max_replies_per_day();
        let now = self.now;
        Ok(self.guard(ctx)?.allow_reply(&allowance_key(addr, true), limit, now))
    }
    /// Messages in the uncommitted batch.
    pub fn batched(&self) -> usize {
        self.done.values().map(Vec::len).sum()
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // Best effort; callers flush explicitly to see errors.
        let _ = self.flush();
    }
}

fn game_from(ctx: &GameCtx) -> Addr {
    Addr::new(
        Some(&format!("Empereur {}", ctx.config.game)),
        ctx.config.mail_address(),
    )
}

fn moderator(ctx: &GameCtx) -> Addr {
    Addr::new(Some(&ctx.config.moderator.name), &ctx.config.moderator.email)
}

/// The decision about one message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Processed before (same bytes): nothing done.
    Duplicate,
    /// Automatic mail (bounce, vacation reply): archived, not answered.
    Ignored,
    /// Authenticated, held only ABSENT / SECOND lines: noted, and the
    /// power's orders for the phase are left as they were.
    Noted {
        power: crate::ids::PowerId,
    },
    /// Authenticated, but no order of it was accepted (and no NO ORDERS
    /// line): nothing stored, the power's orders are as they were and it
    /// is not counted as in.
    Empty {
        power: crate::ids::PowerId,
        rejected: usize,
    },
    Refused(Refusal),
    Accepted {
        power: crate::ids::PowerId,
        receipt: String,
        accepted: usize,
        rejected: usize,
        sender_on_record: bool,
    },
    /// Archived but impossible to answer or process: put aside in
    /// `mail/quarantine/`, the moderator told (see `mail::quarantine`).
    Quarantined {
        reason: String,
    },
    /// From an observer (`[[observer]]`): answered shortly, never read
    /// as orders or commands, never a password failure.
    Observer,
    /// Authenticated, but storing the submission failed: left pending.
    NotStored {
        power: crate::ids::PowerId,
        error: String,
    },
}

impl Verdict {
    pub fn code(&self) -> &'static str {
        match self {
            Verdict::Duplicate => "duplicate",
            Verdict::Ignored => "ignored",
            Verdict::Noted { .. } => "noted",
            Verdict::Empty { .. } => "empty",
            Verdict::Refused(r) => r.code(),
            Verdict::Accepted { .. } => "accepted",
            Verdict::Quarantined { .. } => "quarantined",
            Verdict::Observer => "observer",
            Verdict::NotStored { .. } => "not-stored",
        }
    }
}

/// One handled message.
#[derive(Clone, Debug)]
pub struct Handled {
    pub hash: String,
    pub message_id: Option<String>,
    pub from: Option<String>,
    /// The game it went to, if any.
    pub game: Option<String>,
    pub verdict: Verdict,
    /// Ids of the replies queued.
    pub replies: Vec<String>,
}

/// Ingest one message into one game.
pub fn ingest_game(ctx: &GameCtx, raw: &[u8], run: &mut Run) -> Result<Handled> {
    let inbox = ctx.dir.inbox();
    let a = archive::archive(&inbox, raw)?;
    let again = run.retry_quarantined && super::quarantine::holds(&ctx.dir, &a.hash);
    if (a.stored == Stored::Done && !again) || run.is_done(&inbox, &a.hash) {
        let inc = parse::parse_headers(raw);
        run.log(
            &ctx.dir,
            format!(
                "ingest {}: duplicate of a processed message (message-id {}), skipped",
                short(&a.hash),
                inc.message_id.as_deref().unwrap_or("-")
            ),
        );
        return Ok(Handled {
            hash: a.hash,
            message_id: inc.message_id,
            from: inc.from,
            game: Some(ctx.config.game.clone()),
            verdict: Verdict::Duplicate,
            replies: vec![],
        });
    }
    let h = guarded(ctx, raw, &a.hash, run)?;
    if again && !matches!(h.verdict, Verdict::Quarantined { .. }) {
        super::quarantine::release(&ctx.dir, &a.hash)?;
    }
    Ok(h)
}

/// Process one archived message; if that fails, put the message in the
/// quarantine and go on (no single message may stop processing). Only a
/// failure to quarantine (the disk, not the message) is an error.
fn guarded(ctx: &GameCtx, raw: &[u8], hash: &str, run: &mut Run) -> Result<Handled> {
    match process(ctx, raw, hash, run) {
        Ok(h) => Ok(h),
        Err(e) => {
            let inc = parse::parse_headers(raw);
            let reason = format!("processing failed: {e:#}");
            quarantine(ctx, raw, hash, &inc, reason, run)
                .map_err(|q| e.context(format!("and quarantining it failed too: {q:#}")))
        }
    }
}

/// Put a message aside (see `mail::quarantine`): journalled, marked
/// processed, the moderator told once.
fn quarantine(ctx: &GameCtx, raw: &[u8], hash: &str, inc: &Incoming, reason: String, run: &mut Run) -> Result<Handled> {
    let fresh = super::quarantine::put(&ctx.dir, raw, hash, &reason, run.now)?;
    run.log(
        &ctx.dir,
        format!(
            "ingest {} from {}: quarantined: {reason}",
            short(hash),
            inc.from.as_deref().unwrap_or("-")
        ),
    );
    let mut replies = Vec::new();
    if fresh {
        let from = Addr::new(
            Some(&format!("Empereur {}", ctx.config.game)),
            ctx.config.mail_address(),
        );
        let to = Addr::new(Some(&ctx.config.moderator.name), &ctx.config.moderator.email);
        match super::quarantine::tell_moderator(&ctx.dir, &from, &to, &ctx.config.game, hash, &reason, run.now) {
            Ok(id) => replies.push(id),
            Err(e) => run.log(
                &ctx.dir,
                format!("quarantine notice for {} not queued: {e:#}", short(hash)),
            ),
        }
    }
    run.mark_done(&ctx.dir.inbox(), hash);
    Ok(Handled {
        hash: hash.to_string(),
        message_id: inc.message_id.clone(),
        from: inc.from.clone(),
        game: Some(ctx.config.game.clone()),
        verdict: Verdict::Quarantined { reason },
        replies,
    })
}

/// Process again every message archived but not processed (a crash, or
/// a submission that could not be stored).
pub fn ingest_pending(ctx: &GameCtx, run: &mut Run) -> Result<Vec<Handled>> {
    // Loaded on every run, so yesterday's digest goes out even on a day
    // with no mail.
    run.guard(ctx)?;
    let inbox = ctx.dir.inbox();
    let mut out = Vec::new();
    for name in archive::pending(&inbox)? {
        let path = inbox.join("new").join(&name);
        let raw = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let hash = super::sha256_hex(&raw);
        if hash != name {
            // Delivered here by another program (Postfix, fetchmail):
            // rename it to its hash, or, if that message is archived
            // already, file this copy as seen (nothing is deleted).
            let target = inbox.join("new").join(&hash);
            let seen = inbox.join("cur").join(format!("{hash}:2,S"));
            if target.exists() || seen.exists() {
                let copy = inbox.join("cur").join(format!("{name}:2,S"));
                std::fs::rename(&path, &copy).with_context(|| format!("cannot move {}", path.display()))?;
                out.push(ingest_game(ctx, &raw, run)?);
                continue;
            }
            std::fs::rename(&path, &target).with_context(|| format!("cannot move {}", path.display()))?;
            crate::store::sync_dir(&inbox.join("new"));
        }
        out.push(guarded(ctx, &raw, &hash, run)?);
    }
    Ok(out)
}

fn short(hash: &str) -> &str {
    &hash[..12.min(hash.len())]
}

/// Longest ENTROPY line taken (it is echoed in every report).
pub const ENTROPY_MAX_CHARS: usize = 200;
/// Most lines of a sender's text quoted back in one reply.
pub const QUOTED_LINES_MAX: usize = 200;

fn process(ctx: &GameCtx, raw: &[u8], hash: &str, run: &mut Run) -> Result<Handled> {
    let limit = ctx.config.mail.max_bytes();
    let size = raw.len() as u64;
    let (inc, refusal) = if size > limit {
        (parse::parse_headers(raw), Some(Refusal::TooLarge { size, limit }))
    } else {
        (parse::parse(raw), None)
    };
    let mut h = Handled {
        hash: hash.to_string(),
        message_id: inc.message_id.clone(),
        from: inc.from.clone(),
        game: Some(ctx.config.game.clone()),
        verdict: Verdict::Ignored,
        replies: vec![],
    };
    let who = format!(
        "ingest {} from {} (message-id {})",
        short(hash),
        escape::line(inc.from.as_deref().unwrap_or("-"), 200),
        escape::line(inc.message_id.as_deref().unwrap_or("-"), 200)
    );
    // A delivery status notification (RFC 3464) is never answered; what
    // it says of a player's address is recorded (`mail::dsn`).
    if let Some(t) = super::dsn::take(&ctx.dir, &ctx.config, raw, run.now)? {
        run.log(&ctx.dir, format!("{who}: {}", t.line));
        h.replies.extend(t.told);
        run.mark_done(&ctx.dir.inbox(), hash);
        return Ok(h);
    }
    // Never answer automatic mail, nor mail that came from this game
    // (RFC 3834): that is how mail loops start.
    if let Some(why) = loop_reason(ctx, &inc) {
        run.log(&ctx.dir, format!("{who}: not answered ({why})"));
        run.mark_done(&ctx.dir.inbox(), hash);
        return Ok(h);
    }
    if let Some(Err(why)) = inc.from.as_deref().map(super::addressable) {
        let reason = format!("the sender's address {why}; no reply can be sent");
        return quarantine(ctx, raw, hash, &inc, reason, run);
    }
    // An observer's mail is never orders, whatever it holds (a POWER and
    // PASSWORD line included): no password is checked, so none fails.
    if let Some(o) = inc.from.as_deref().and_then(|f| ctx.config.observer(f)) {
        let body = format!(
            "{}, you observe game {}: you receive its public reports, the public map and the press sent to every player. An observer sends no orders and no commands, so nothing of your mail was read. To take a seat, write to the moderator.\n",
            escape::line(&o.name, 80),
            ctx.config.game
        );
        let body = textwrap::fill(&body, 72);
        h.verdict = Verdict::Observer;
        h.replies
            .extend(reply(ctx, &inc, hash, body, None, Queue::Refusal, run)?);
        run.log(&ctx.dir, format!("{who}: from an observer; answered, not read"));
        run.mark_done(&ctx.dir.inbox(), hash);
        return Ok(h);
    }
    let refusal = refusal.or_else(|| inc.text.is_none().then_some(Refusal::NoText));
    let pre = inc.text.as_ref().map(|(t, _)| prescan(t)).unwrap_or_default();
    let verdict = match refusal {
        Some(r) => Err(r),
        None => authenticate(ctx, &inc, &pre, run, &mut h)?,
    };
    let a = match verdict {
        Err(r) => {
            refuse(ctx, &inc, hash, r, run, &mut h, &who)?;
            return Ok(h);
        }
        Ok(a) => a,
    };
    // Replays: without a PHASE line, only a mail written after the phase
    // opened (or answering this phase's mail) is taken.
    if pre.phase.is_none()
        && let Some(opened) = phase_opened(ctx, run)?
        && !fresh(ctx, &inc, a.power, opened, run.now)
    {
        let r = Refusal::StaleMail {
            date: inc.date.map(|d| d.to_rfc3339()),
            opened: opened.to_rfc3339(),
        };
        refuse(ctx, &inc, hash, r, run, &mut h, &who)?;
        return Ok(h);
    }
    let msg = Message {
        inc: &inc,
        hash,
        who: &who,
    };
    take_orders(ctx, &msg, a, run, &mut h)?;
    Ok(h)
}

/// One message being processed: what it is and how the journal names it.
struct Message<'a> {
    inc: &'a Incoming,
    hash: &'a str,
    /// `ingest <hash> from <sender> (message-id <id>)`.
    who: &'a str,
}

/// Check the message's password with the run's cache and its game's
/// guard; tell a power whose password is being guessed (its replies go
/// into `h`).
fn authenticate(
    ctx: &GameCtx,
    inc: &Incoming,
    pre: &super::prescan::PreHeader,
    run: &mut Run,
    h: &mut Handled,
) -> Result<std::result::Result<Authenticated, Refusal>> {
    let now = run.now;
    let mut cache = std::mem::take(&mut run.cache);
    let seconds = run.times(ctx)?.schedule.seconds.clone();
    let guard = run.guard(ctx)?;
    let vouched = match (&ctx.config.mail.authentication_results, inc.from.as_deref()) {
        (None, _) => true,
        (Some(id), Some(from)) => super::authres::vouches(&inc.authentication_results, id, from),
        (Some(_), None) => false,
    };
    let sender = auth::Sender {
        from: inc.from.as_deref(),
        seconds: &seconds,
        vouched,
    };
    let v = auth::authenticate(&ctx.config, ctx.state.phase, sender, pre, &mut cache, guard, now);
    run.cache = cache;
    let guard = run.guard(ctx)?;
    let notices = std::mem::take(&mut guard.notices);
    for n in notices {
        if !n.tell {
            let line = format!(
                "{} wrong passwords for {} again (from {})",
                super::guard::FAILURES,
                n.power.id(),
                n.senders
                    .iter()
                    .map(|s| escape::line(s, 120))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            run.guard(ctx)?.note_for_digest(line.clone(), now);
            run.log(&ctx.dir, format!("{line}; in the moderator's digest"));
            continue;
        }
        let ids = tell_guessing(ctx, &n, now)?;
        let locked = match &n.locked {
            Some((addr, until)) => format!("; {} locked until {until}", escape::line(addr, 120)),
            None => String::new(),
        };
        run.log(
            &ctx.dir,
            format!(
                "{} wrong passwords for {} (from {}){locked}; player of record and moderator told ({})",
                super::guard::FAILURES,
                n.power.id(),
                n.senders
                    .iter()
                    .map(|s| escape::line(s, 120))
                    .collect::<Vec<_>>()
                    .join(", "),
                ids.join(", ")
            ),
        );
        h.replies.extend(ids);
    }
    Ok(v)
}

/// An authenticated message: its absences and seconds, its commands,
/// its orders checked and stored, the acknowledgement queued, and the
/// message marked processed once its submission is stored.
fn take_orders(ctx: &GameCtx, msg: &Message, mut a: Authenticated, run: &mut Run, h: &mut Handled) -> Result<()> {
    let (inc, hash, who) = (msg.inc, msg.hash, msg.who);
    let (text, source) = inc.text.as_ref().expect("authenticated messages have text");
    // Who is on record is decided before this message's own lines can
    // change it: a forged SECOND line must not vouch for itself.
    let schedule = run.times(ctx)?.schedule.clone();
    if !a.sender_on_record
        && a.vouched
        && let (Some(second), Some(from)) = (schedule.seconds.get(&a.power), inc.from.as_deref())
        && second.eq_ignore_ascii_case(from)
    {
        a.sender_on_record = true;
    }
    // Absences and seconds, then the orders. The schedule is saved only
    // if the message is not refused.
    let mut changed_schedule = schedule.clone();
    let meta = super::meta::apply(text, a.power, ctx.config.tz(), &mut changed_schedule);
    // Commands and press (`mail::commands`): blanked before the orders.
    let asked = super::commands::extract(&meta.text);
    let (text, mut checked, signed) = without_signoffs(ctx, &asked.text, a.power);
    let readiness = checked.header.readiness.map(|(r, _)| r);
    // READY with nothing stored counts the power in, as PASS would: a
    // player who says "do not wait for me" has nothing more to send.
    let pass_by_ready = readiness == Some(Readiness::Ready)
        && checked.accepted.is_empty()
        && !checked.header.no_orders
        && !has_stored(ctx, a.power, run);
    if pass_by_ready {
        checked.header.no_orders = true;
    }
    let text = &text;
    if let Some(e) = &checked.header.entropy
        && e.chars().count() > ENTROPY_MAX_CHARS
    {
        let r = Refusal::EntropyTooLong {
            chars: e.chars().count(),
            limit: ENTROPY_MAX_CHARS,
        };
        return refuse(ctx, inc, hash, r, run, h, who);
    }
    if meta.changed {
        run.save_schedule(ctx, changed_schedule.clone())?;
        run.log(&ctx.dir, format!("{who}: {}", meta.notes.join(" ")));
    }
    let shown = redact(text);
    let mut view = AckView {
        game: ctx.config.game.clone(),
        phase: ctx.state.phase.to_string(),
        power: Some(a.power.name().to_string()),
        source: source.to_string(),
        forged_note: forged_note(&a, inc.from.as_deref()),
        notes: meta.notes.iter().chain(&signed).map(|n| escape::line(n, 300)).collect(),
        ..AckView::default()
    }
    .with_checked(&checked, &shown);
    // The deadline in the zone this message asks for, else the player's.
    let zone = match &checked.header.timezone {
        Some((name, _)) => name.parse().ok(),
        None => None,
    };
    let tz = match zone {
        Some(tz) => tz,
        None => run.player_tz(ctx, a.power)?,
    };
    let deadline = open_deadline(ctx, &changed_schedule, run);
    view.deadline = deadline.map(|d| crate::zone::shown(d, tz));
    cap_quoted(&mut view);
    let stored = store_orders(ctx, inc, &a, &checked, deadline, run)?;
    if let (Ok(_), Some(tz)) = (&stored, zone) {
        view.notes.push(set_zone(ctx, a.power, tz, run)?);
    }
    if stored.is_ok() {
        let notes = readiness_notes(
            ctx,
            a.power,
            readiness,
            matches!(stored, Ok(Some(_))),
            pass_by_ready,
            run,
        )?;
        view.notes.extend(notes);
    }
    if matches!(stored, Ok(Some(_))) {
        view.notes.extend(draw_note(ctx.state.phase, &checked));
    }
    let noted = meta.changed || asked.any() || readiness.is_some() || zone.is_some();
    let line = verdict_line(msg, &a, &checked, &stored, noted, &mut view, h);
    run.log(&ctx.dir, line);
    let own = matches!(stored, Ok(Some(_))).then_some((checked.accepted.as_slice(), checked.header.no_orders));
    view.standing = Some(run.standing(ctx, a.power, own)?);
    if stored.is_ok() && asked.any() {
        // ORDERS and STATUS read the stored orders: this message's too.
        run.write_waiting(&ctx.dir)?;
        let who_asks = super::commands::Asker {
            power: a.power,
            to: Addr::new(inc.from_name.as_deref(), inc.from.as_deref().unwrap_or(&a.on_record)),
            copy: copy_to_record(&a, inc).then(|| Addr::new(None, &a.on_record)),
            hash,
            in_reply_to: inc.message_id.clone(),
        };
        let answered = super::commands::answer(ctx, &who_asks, &asked, run)?;
        for l in answered.journal {
            run.log(&ctx.dir, format!("{who}: {l}"));
        }
        view.answers = answered.blocks;
        view.press_sent = answered.press_sent;
        h.replies.extend(answered.replies);
    }
    let body = ctx.templates.render("ack", &view)?;
    let copy = copy_to_record(&a, inc).then(|| a.on_record.clone());
    // An acknowledgement of stored orders is queued after they are written.
    let how = if matches!(stored, Ok(Some(_))) {
        Queue::AfterStore
    } else {
        Queue::Anchored
    };
    h.replies.extend(reply(ctx, inc, hash, body, copy, how, run)?);
    if stored.is_ok() {
        run.mark_done(&ctx.dir.inbox(), hash);
    }
    Ok(())
}

/// What the acknowledgement of stored orders says of a DRAW or NODRAW
/// among them (house rule 'draws', `rules::draw`), to the voter alone:
/// the vote is secret.
fn draw_note(phase: crate::ids::PhaseId, checked: &orders::Checked) -> Option<String> {
    use crate::orders::ast::Order;
    let has = |o: Order| checked.accepted.iter().any(|l| l.order == o);
    if has(Order::Draw) {
        Some(format!(
            "Your vote for a draw counts when phase {phase} resolves, if these are still your orders then, and stands until you send NODRAW. Nobody else learns of it unless every power still in the game votes for one: then the game ends in a draw."
        ))
    } else if has(Order::NoDraw) {
        Some(format!(
            "Your vote for a draw, if you had one, is withdrawn when phase {phase} resolves."
        ))
    } else {
        None
    }
}

/// TIMEZONE: `power`'s player reads deadlines in `tz` from now on. Kept
/// with the player's entry in game.toml (as SET PASSWORD keeps the
/// password's hash), so a new player seated by replace-player starts
/// with their own zone or the game's. Returns what the acknowledgement
/// says.
fn set_zone(ctx: &GameCtx, power: crate::ids::PowerId, tz: chrono_tz::Tz, run: &mut Run) -> Result<String> {
    // Read afresh under the game lock: another message of this run may
    // have written game.toml since the context was loaded.
    let mut config = ctx.dir.load_config()?;
    if let Some(p) = config.players.iter_mut().find(|p| p.power == power)
        && p.timezone.as_deref() != Some(tz.name())
    {
        p.timezone = Some(tz.name().to_string());
        crate::store::atomic_write(&ctx.dir.config(), config.to_toml().as_bytes()).context("writing game.toml")?;
        run.log(
            &ctx.dir,
            format!("{} reads deadlines in {} (TIMEZONE)", power.id(), tz.name()),
        );
    }
    run.times(ctx)?.zones.insert(power, tz);
    Ok(format!(
        "TIMEZONE: {} reads every deadline in {} from now on, the zone named and once in UTC.",
        power.name(),
        tz.name()
    ))
}

/// Whether `power` has a submission stored in the open phase (written,
/// or waiting in this run's batch).
fn has_stored(ctx: &GameCtx, power: crate::ids::PowerId, run: &mut Run) -> bool {
    run.waiting(&ctx.dir).subs.contains_key(&power) || submission::path(&ctx.dir, power).exists()
}

/// Apply a message's READY or WAIT (or the lack of one) to the power's
/// word in force for the open phase, save it, and say which is in force.
/// A message that stored new orders withdraws a READY (they were not
/// final after all) but keeps a WAIT; a message without either that
/// stored nothing changes nothing.
fn readiness_notes(
    ctx: &GameCtx,
    power: crate::ids::PowerId,
    said: Option<Readiness>,
    stored_new: bool,
    pass_by_ready: bool,
    run: &mut Run,
) -> Result<Vec<String>> {
    use crate::store::clock::Said;
    let phase = ctx.state.phase;
    let mut schedule = run.times(ctx)?.schedule.clone();
    let before = schedule.readiness_in(phase).get(&power).copied();
    let after = match said {
        Some(r) => Some(r),
        None if stored_new && before == Some(Readiness::Ready) => None,
        None => before,
    };
    if after != before {
        match after {
            Some(word) => schedule.readiness.insert(power, Said { phase, word }),
            None => schedule.readiness.remove(&power),
        };
        run.save_schedule(ctx, schedule)?;
    }
    let name = power.name();
    let delay = ctx.config.deadlines.change_of_mind_minutes;
    let mut out = Vec::new();
    match (after, said) {
        (Some(Readiness::Ready), Some(_)) => out.push(format!(
            "READY is in force for {name} in phase {phase}: your orders are final and the phase does not wait for you. When every power that must order is READY, it closes at the next run, without the {delay}-minute wait for a change of mind. New orders withdraw it; WAIT replaces it."
        )),
        (Some(Readiness::Wait), Some(_)) => out.push(format!(
            "WAIT is in force for {name} in phase {phase}: the phase does not close before its deadline on your account, even when everyone is in. Send READY to lift it."
        )),
        (Some(Readiness::Wait), None) if stored_new => out.push(format!(
            "WAIT is still in force for {name} in phase {phase}: the phase does not close before its deadline on your account. Send READY to lift it."
        )),
        (None, _) if before == Some(Readiness::Ready) && stored_new => out.push(format!(
            "Your READY of phase {phase} is withdrawn: these orders replace the ones you called final. Send READY again when these are."
        )),
        _ => {}
    }
    if pass_by_ready {
        out.push(format!(
            "Nothing was stored for {name} in phase {phase}, so READY counts you in with no orders, as PASS does."
        ));
    }
    if said.is_some() && !crate::rules::roles(&ctx.scenario, &ctx.state).must.contains(&power) {
        out.push(format!(
            "{name} does not have to order in phase {phase}: its READY or WAIT holds nothing up and hurries nothing."
        ));
    }
    Ok(out)
}

/// Check the orders of `text`; a sign-off at its end (`mail::signoff`)
/// that the checker did not take is blanked, and said in a note, not as
/// an error. Returns the text checked, its check, and the notes.
fn without_signoffs(ctx: &GameCtx, text: &str, power: crate::ids::PowerId) -> (String, orders::Checked, Vec<String>) {
    let checked = orders::check(text, &ctx.scenario, &ctx.state, Some(power));
    let taken: Vec<usize> = checked.accepted.iter().map(|o| o.span.line).collect();
    let erred: Vec<usize> = checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.span.line)
        .collect();
    let found = super::signoff::find(text, |l| erred.contains(&l) && !taken.contains(&l));
    if found.is_empty() {
        return (text.to_string(), checked, Vec::new());
    }
    let lines: Vec<&str> = text.lines().collect();
    let notes = found
        .iter()
        .map(|&l| {
            format!(
                "Ignored as a sign-off, not an order (line {l}): {}",
                lines.get(l - 1).map_or("", |s| s.trim())
            )
        })
        .collect();
    let text = super::signoff::blank(text, &found);
    let checked = orders::check(&text, &ctx.scenario, &ctx.state, Some(power));
    (text, checked, notes)
}

/// Store the accepted orders as the power's submission, unless none was
/// accepted (and no NO ORDERS line): then the stored orders stay and the
/// power is not in. `Ok(Some(receipt))` stored, `Ok(None)` nothing to
/// store, `Err` the store failed (the message stays pending). The powers
/// a stored message addresses hear of it now (diplomacy by mail).
fn store_orders(
    ctx: &GameCtx,
    inc: &Incoming,
    a: &Authenticated,
    checked: &orders::Checked,
    deadline: Option<DateTime<Utc>>,
    run: &mut Run,
) -> Result<std::result::Result<Option<String>, anyhow::Error>> {
    if checked.accepted.is_empty() && !checked.header.no_orders {
        return Ok(Ok(None));
    }
    let sub = Submission {
        power: a.power,
        phase: ctx.state.phase,
        by: format!("mail:{}", inc.from.as_deref().unwrap_or("")),
        received: run.when(),
        entropy: checked
            .header
            .entropy
            .as_deref()
            .map(|e| escape::line(e, ENTROPY_MAX_CHARS)),
        passed: checked.header.no_orders,
        orders: checked.accepted.clone(),
    };
    let text = match submission::to_text(&sub) {
        Ok(t) => t,
        Err(e) => return Ok(Err(e)),
    };
    let receipt = submission::receipt_of(text.as_bytes());
    let mine = BTreeMap::from([(a.power, sub.orders.clone())]);
    if crate::report::proposals(&mine).is_empty() {
        // Written with the batch (see `Run`).
        run.waiting(&ctx.dir).subs.insert(a.power, text);
        return Ok(Ok(Some(receipt)));
    }
    // Its notices tell other powers of these orders: stored first.
    run.write_waiting(&ctx.dir)?;
    if let Err(e) = run.write_submission(&ctx.dir, a.power, &text) {
        return Ok(Err(e));
    }
    super::compose::proposal_notices(
        &ctx.dir,
        &ctx.config,
        &ctx.state,
        a.power,
        &sub.orders,
        deadline,
        run.now,
    )?;
    Ok(Ok(Some(receipt)))
}

/// The verdict of an authenticated message in `view` and `h`, and its
/// journal line. `noted`: it held absences, seconds or commands.
fn verdict_line(
    msg: &Message,
    a: &Authenticated,
    checked: &orders::Checked,
    stored: &std::result::Result<Option<String>, anyhow::Error>,
    noted: bool,
    view: &mut AckView,
    h: &mut Handled,
) -> String {
    let who = msg.who;
    match stored {
        Ok(None) if noted && checked.all_accepted() => {
            view.verdict = "noted".into();
            h.verdict = Verdict::Noted { power: a.power };
            format!("{who}: {} noted; orders unchanged", a.power.id())
        }
        Ok(None) => {
            view.verdict = "empty".into();
            h.verdict = Verdict::Empty {
                power: a.power,
                rejected: view.rejected_count,
            };
            format!(
                "{who}: {} sent no order that could be accepted ({} rejected); stored orders unchanged, not counted as in",
                a.power.id(),
                view.rejected_count
            )
        }
        Ok(Some(receipt)) => {
            view.verdict = "accepted".into();
            view.receipt = Some(receipt.clone());
            h.verdict = Verdict::Accepted {
                power: a.power,
                receipt: receipt.clone(),
                accepted: view.accepted_count,
                rejected: view.rejected_count,
                sender_on_record: a.sender_on_record,
            };
            format!(
                "{who}: accepted for {} ({} orders accepted, {} rejected{}){}, receipt {receipt}",
                a.power.id(),
                view.accepted_count,
                view.rejected_count,
                if checked.header.no_orders { ", NO ORDERS" } else { "" },
                if a.sender_on_record {
                    ""
                } else {
                    ", sender not on record: copy to the address on record"
                }
            )
        }
        Err(e) => {
            view.verdict = "not-stored".into();
            view.store_error = Some(format!("{e:#}"));
            h.verdict = Verdict::NotStored {
                power: a.power,
                error: format!("{e:#}"),
            };
            format!(
                "{who}: authenticated as {} but NOT stored: {e:#}; left pending",
                a.power.id()
            )
        }
    }
}

/// Why a message must not be answered, if it must not.
fn loop_reason(ctx: &GameCtx, inc: &Incoming) -> Option<String> {
    if let Some(r) = &inc.auto_reason {
        return Some(format!("automatic mail: {r}"));
    }
    let Some(from) = inc.from.as_deref() else {
        return Some("no sender".into());
    };
    let ours = ctx.config.mail_address().to_ascii_lowercase();
    if from == ours {
        return Some("sent from the game's own address".into());
    }
    if inc.x_loop.contains(&ours) {
        return Some("it carries this game's X-Loop".into());
    }
    None
}

/// Refuse a message: a reply saying why to a player (or to a sender
/// who is no player, once a day, a short fixed text that echoes
/// nothing), a journal line, marked processed.
fn refuse(
    ctx: &GameCtx,
    inc: &Incoming,
    hash: &str,
    r: Refusal,
    run: &mut Run,
    h: &mut Handled,
    who: &str,
) -> Result<()> {
    run.log(&ctx.dir, format!("{who}: refused ({}): {r}", r.code()));
    let from = inc.from.clone().unwrap_or_default();
    if is_stranger(ctx, &from, run)? {
        // Reflection: nothing of theirs goes back, no game is named.
        let now = run.now;
        let guard = run.guard(ctx)?;
        guard.note_for_digest(
            format!(
                "{} from {}: {}",
                now.format("%H:%M"),
                escape::line(&from, 120),
                r.code()
            ),
            now,
        );
        if guard.answer_stranger(&from, now) {
            let m = OutMail {
                id: outbox::stable_id(&["stranger", &ctx.config.game, &from, &now.format("%Y-%m-%d").to_string()]),
                from: game_from(ctx),
                to: vec![Addr::new(None, &from)],
                cc: vec![],
                subject: "Your message to a play-by-email game".into(),
                in_reply_to: None,
                body: super::join::JOIN_REPLY.into(),
                attachments: vec![],
                date: now,
            };
            if let Some(id) = send_limited(ctx, m, run, false)? {
                h.replies.push(id);
            }
            // A stranger's mail is a request to join (`mail::join`).
            match super::join::forward(ctx, inc, hash, &r.to_string(), run)? {
                Some(id) => {
                    run.log(
                        &ctx.dir,
                        format!("{who}: forwarded to the moderator as a join request ({id})"),
                    );
                    h.replies.push(id);
                }
                None => run.log(
                    &ctx.dir,
                    format!("{who}: join request not forwarded: the moderator's allowance for today is used up"),
                ),
            }
        } else {
            run.log(&ctx.dir, format!("{who}: no player; answered once today already"));
        }
    } else {
        let view = AckView {
            game: ctx.config.game.clone(),
            phase: ctx.state.phase.to_string(),
            verdict: "refused".into(),
            refusal: Some(r.to_string()),
            ..AckView::default()
        };
        let body = ctx.templates.render("ack", &view)?;
        h.replies
            .extend(reply(ctx, inc, hash, body, None, Queue::Refusal, run)?);
    }
    h.verdict = Verdict::Refused(r);
    let now = run.now;
    run.guard(ctx)?.refused.insert(hash.to_string(), now);
    run.mark_done(&ctx.dir.inbox(), hash);
    Ok(())
}

/// The one reply a sender who is no player gets (at most once a day).
pub const STRANGER_REPLY: &str = "This address takes orders for a play-by-email game from its players only.\nYour message was not read as orders and nothing was stored.\n\nIf you are a player, write from the address the moderator has on record\nfor you, with your POWER and PASSWORD lines.\n\nThis is an automatic reply; there will be no other today.\n";

/// Whether `from` is nobody of this game: no player, second or moderator.
fn is_stranger(ctx: &GameCtx, from: &str, run: &mut Run) -> Result<bool> {
    let known = ctx.config.players.iter().any(|p| p.email.eq_ignore_ascii_case(from))
        || ctx.config.moderator.email.eq_ignore_ascii_case(from)
        || run
            .times(ctx)?
            .schedule
            .seconds
            .values()
            .any(|s| s.eq_ignore_ascii_case(from));
    Ok(!known)
}

/// When the open phase opened, if its clock runs.
fn phase_opened(ctx: &GameCtx, run: &mut Run) -> Result<Option<DateTime<Utc>>> {
    let clock = run.times(ctx)?.clock.as_ref();
    Ok(clock.filter(|c| c.phase == Some(ctx.state.phase)).map(|c| c.opened))
}

/// Whether a message without a PHASE line belongs to the open phase: it
/// was written after the phase opened, or it answers this phase's
/// opening mail or one of its reminders. An old order mail sent again
/// carries its old Date: and is refused as stale.
fn fresh(ctx: &GameCtx, inc: &Incoming, power: crate::ids::PowerId, opened: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    // A message without a Date: line (RFC 5322 requires one; a mail
    // server adds it) is taken as written now.
    if inc.date.is_none_or(|d| d >= opened) {
        return true;
    }
    let phase = ctx.state.phase.to_string();
    let mut ours = vec![outbox::stable_id(&[
        "phase-opening",
        &ctx.config.game,
        &phase,
        power.id(),
    ])];
    let mut day = opened.date_naive();
    while day <= now.date_naive() && ours.len() < 100 {
        ours.push(outbox::stable_id(&[
            "reminder",
            &ctx.config.game,
            &phase,
            power.id(),
            &day.format("%Y-%m-%d").to_string(),
        ]));
        day = day.succ_opt().unwrap_or(day);
    }
    inc.references
        .iter()
        .any(|r| ours.iter().any(|o| r.split('@').next() == Some(o.as_str())))
}

/// The sender's text as a reply may quote it: every PASSWORD is hidden
/// (wherever it stands on its line) and hidden characters are escaped;
/// the lines stay where they were, so diagnostics still point right.
pub fn redact(text: &str) -> String {
    text.lines()
        .map(|l| {
            let shown = match l.to_ascii_lowercase().find("password") {
                Some(i) => format!("{}PASSWORD [hidden]", &l[..i]),
                None => l.to_string(),
            };
            escape::line(&shown, 300)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// At most [`QUOTED_LINES_MAX`] of the sender's lines go back: rejected
/// lines and diagnostics (each quotes one line) share the allowance.
fn cap_quoted(view: &mut AckView) {
    let half = QUOTED_LINES_MAX / 2;
    let rejected = view.orders.iter().filter(|o| !o.ok).count();
    if rejected > half {
        let mut seen = 0;
        view.orders.retain(|o| {
            if o.ok {
                return true;
            }
            seen += 1;
            seen <= half
        });
        view.orders.push(crate::report::AckOrder {
            ok: false,
            text: format!("[{} more rejected line(s) not quoted]", rejected - half),
        });
    }
    if view.diagnostics.len() > half {
        let more = view.diagnostics.len() - half;
        view.diagnostics.truncate(half);
        view.diagnostics.push(format!("[{more} more problem(s) not quoted]"));
    }
}

/// Tell a power's player of record (once per [`super::guard::FAILURES`]
/// wrong passwords) and the moderator that its password is being
/// guessed, from where, and which address is locked. The player's own
/// orders are never refused for it.
fn tell_guessing(ctx: &GameCtx, n: &super::guard::Guessing, now: DateTime<Utc>) -> Result<Vec<String>> {
    let power = n.power;
    let senders = n
        .senders
        .iter()
        .map(|s| format!("  {}", escape::line(s, 120)))
        .collect::<Vec<_>>()
        .join("\n");
    let locked = match &n.locked {
        Some((addr, until)) => format!(
            "Until {} no password from {} is checked.",
            until.format("%Y-%m-%d %H:%M UTC"),
            escape::line(addr, 120)
        ),
        None => "No address is locked yet.".to_string(),
    };
    let body = format!(
        "{} wrong passwords for {} in game {} came in within a day, from:\n\n{senders}\n\n{locked}\nOrders from {}'s own address are still read and taken with the right\npassword: a lock only ever stops the address that guessed.\n",
        super::guard::FAILURES,
        power.name(),
        ctx.config.game,
        power.name(),
    );
    let stamp = now.to_rfc3339();
    let mut out = Vec::new();
    if let Some(player) = ctx.config.player(power) {
        let m = OutMail {
            id: outbox::stable_id(&["guessing", &ctx.config.game, power.id(), &stamp, &n.senders.join(",")]),
            from: game_from(ctx),
            to: vec![Addr::new(Some(&player.name), &player.email)],
            cc: vec![],
            subject: format!("Empereur {}: wrong passwords for {}", ctx.config.game, power.name()),
            in_reply_to: None,
            body: format!("{body}If you did not send these, you need do nothing; the moderator is told.\n"),
            attachments: vec![],
            date: now,
        };
        outbox::queue(&ctx.dir, &m)?;
        out.push(m.id);
    }
    let m = OutMail {
        id: outbox::stable_id(&[
            "guessing-moderator",
            &ctx.config.game,
            power.id(),
            &stamp,
            &n.senders.join(","),
        ]),
        from: game_from(ctx),
        to: vec![moderator(ctx)],
        cc: vec![],
        subject: format!(
            "Empereur {}: wrong passwords for {} (moderator)",
            ctx.config.game,
            power.name()
        ),
        in_reply_to: None,
        body,
        attachments: vec![],
        date: now,
    };
    outbox::queue(&ctx.dir, &m)?;
    out.push(m.id);
    Ok(out)
}

/// Whether an answer to `inc` is copied to the power's address on
/// record: when it came from elsewhere (a From the game's server did not
/// vouch for is answered there already).
fn copy_to_record(a: &Authenticated, inc: &Incoming) -> bool {
    !a.sender_on_record
        && !inc
            .from
            .as_deref()
            .is_some_and(|f| f.eq_ignore_ascii_case(&a.on_record))
}

fn forged_note(a: &Authenticated, from: Option<&str>) -> Option<String> {
    if !a.vouched && from.is_some_and(|f| f.eq_ignore_ascii_case(&a.on_record)) {
        return Some(format!(
            "Note: the game's mail server could not confirm that this message came from {}, the address on record for {}: that domain passed neither DMARC nor an aligned DKIM signature there. It was taken because the password was right.",
            escape::line(&a.on_record, 120),
            a.power.name(),
        ));
    }
    (!a.sender_on_record).then(|| {
        format!(
            "Note: this message came from {}, not from the address on record for {}. It was taken because the password was right; a copy of this acknowledgement goes to the address on record.",
            escape::line(from.unwrap_or("an unknown sender"), 120),
            a.power.name(),
        )
    })
}

/// Queue a reply to the sender of `inc` (and a copy to `copy`).
fn reply(
    ctx: &GameCtx,
    inc: &Incoming,
    hash: &str,
    body: String,
    copy: Option<String>,
    how: Queue,
    run: &mut Run,
) -> Result<Option<String>> {
    let Some(to) = &inc.from else { return Ok(None) };
    let theirs = inc.subject.as_deref().map(|s| escape::line(s.trim(), 150));
    let subject = match theirs {
        Some(s) if s.to_ascii_lowercase().starts_with("re:") => s,
        Some(s) if !s.is_empty() => format!("Re: {s}"),
        _ => format!("Re: your mail to game {}", ctx.config.game),
    };
    let m = OutMail {
        id: outbox::stable_id(&["ack", &ctx.config.game, hash]),
        from: game_from(ctx),
        to: vec![Addr::new(inc.from_name.as_deref(), to)],
        cc: copy.into_iter().map(|c| Addr::new(None, &c)).collect(),
        subject,
        in_reply_to: inc.message_id.clone(),
        body,
        attachments: vec![],
        date: run.now,
    };
    send_limited_as(ctx, m, run, how)
}

/// How [`send_limited_as`] queues a message, and against which daily
/// allowance it counts: mail answering a sender who gave no right
/// password counts apart from mail answering one who did, so junk under
/// a player's forged From never uses up the receipts of their orders
/// (an allowance is the sender's, never the victim's).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Queue {
    /// Now, without the game's anchors (the fixed reply to a stranger).
    Unanchored,
    /// Now, with the game's anchors, answering unauthenticated mail.
    Refusal,
    /// Now, with the game's anchors, answering authenticated mail.
    Anchored,
    /// With the anchors, once the batch's submissions are written (an
    /// acknowledgement of stored orders; see `Run`).
    AfterStore,
}

impl Queue {
    fn authenticated(self) -> bool {
        matches!(self, Queue::Anchored | Queue::AfterStore)
    }
}

/// The key of `addr`'s daily allowance (see [`Queue`]).
fn allowance_key(addr: &str, authenticated: bool) -> String {
    if authenticated {
        format!("authenticated {}", addr.to_ascii_lowercase())
    } else {
        addr.to_ascii_lowercase()
    }
}

/// Queue `m` unless every recipient had the day's allowance of replies
/// (`mail.max_replies_per_day`); recipients over it are dropped and
/// journalled.
/// `anchored`: whether the mail carries the game's anchors (not the fixed
/// reply to a stranger, which names no game).
pub(crate) fn send_limited(ctx: &GameCtx, m: OutMail, run: &mut Run, anchored: bool) -> Result<Option<String>> {
    let how = if anchored { Queue::Anchored } else { Queue::Unanchored };
    send_limited_as(ctx, m, run, how)
}

/// [`send_limited`] for mail caused by a sender who gave no right
/// password (a join request): anchored, counted apart.
pub(crate) fn send_unauthenticated(ctx: &GameCtx, m: OutMail, run: &mut Run) -> Result<Option<String>> {
    send_limited_as(ctx, m, run, Queue::Refusal)
}

fn send_limited_as(ctx: &GameCtx, mut m: OutMail, run: &mut Run, how: Queue) -> Result<Option<String>> {
    let limit = ctx.config.mail.max_replies_per_day();
    let now = run.now;
    let guard = run.guard(ctx)?;
    let mut over = Vec::new();
    for list in [&mut m.to, &mut m.cc] {
        list.retain(|a| {
            let ok = guard.allow_reply(&allowance_key(&a.email, how.authenticated()), limit, now);
            if !ok {
                over.push(a.email.clone());
            }
            ok
        });
    }
    for o in &over {
        run.log(
            &ctx.dir,
            format!(
                "reply {} to {o} not sent: {limit} replies to that address today already",
                m.id
            ),
        );
    }
    if m.to.is_empty() {
        if m.cc.is_empty() {
            return Ok(None);
        }
        m.to = std::mem::take(&mut m.cc);
    }
    let q = match how {
        Queue::Anchored | Queue::Refusal => outbox::queue_anchored(&ctx.dir, &m, &ctx.anchors)?,
        Queue::Unanchored => outbox::queue_unanchored(&ctx.dir, &m)?,
        Queue::AfterStore => match outbox::prepare(&ctx.dir, &m, &ctx.anchors)? {
            Some(p) => {
                run.waiting(&ctx.dir).after.push(p);
                outbox::Queued::New
            }
            None => outbox::Queued::AlreadySent,
        },
    };
    if q == outbox::Queued::AlreadySent {
        run.log(&ctx.dir, format!("reply {} was sent already; not queued again", m.id));
    }
    Ok(Some(m.id))
}

/// What routing needs to know of one game: its id, its address, and
/// who plays in it (players and seconds, lower case).
#[derive(Clone, Debug)]
pub struct GameAddr {
    pub id: String,
    pub address: String,
    pub players: Vec<String>,
}

impl GameAddr {
    pub fn of(dir: &GameDir, config: &GameConfig) -> GameAddr {
        let mut players: Vec<String> = config.players.iter().map(|p| p.email.to_ascii_lowercase()).collect();
        if let Ok(s) = dir.load_schedule() {
            players.extend(s.seconds.values().map(|a| a.to_ascii_lowercase()));
        }
        GameAddr {
            id: config.game.clone(),
            address: config.mail_address().to_ascii_lowercase(),
            players,
        }
    }
}

/// Where a message goes among several games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    Game(String),
    Refused(Refusal),
}

/// Route a message among `games`: by its GAME line; else by the game
/// address it was sent to; else to the one game in which the sender
/// plays. Several candidates and no GAME line: refused (a GAME line is
/// asked for), never stored in two games.
pub fn route(games: &[GameAddr], inc: &Incoming) -> Route {
    if let Some(named) = inc.text.as_ref().and_then(|(t, _)| prescan(t).game) {
        return match games.iter().find(|g| g.id.eq_ignore_ascii_case(&named)) {
            Some(g) => Route::Game(g.id.clone()),
            None => Route::Refused(Refusal::UnknownGame { named }),
        };
    }
    let addressed: Vec<&GameAddr> = games.iter().filter(|g| inc.recipients.contains(&g.address)).collect();
    if let [g] = addressed.as_slice() {
        return Route::Game(g.id.clone());
    }
    let pool: Vec<&GameAddr> = if addressed.is_empty() {
        games.iter().collect()
    } else {
        addressed.clone()
    };
    let from = inc.from.as_deref().unwrap_or("");
    let playing: Vec<&&GameAddr> = pool.iter().filter(|g| g.players.iter().any(|p| p == from)).collect();
    match playing.as_slice() {
        [g] => Route::Game(g.id.clone()),
        [] if addressed.is_empty() => Route::Refused(Refusal::NoGame),
        _ => Route::Refused(Refusal::AmbiguousGame),
    }
}

/// A host directory of many games (`ingest --games DIR`): each
/// subdirectory with a `game.toml` is a game. The host keeps its own
/// Maildir (`DIR/mail/inbox`) where every message is archived before it
/// is routed, and its own outbox for replies to mail for no game.
pub struct Host {
    pub dir: GameDir,
    pub games: BTreeMap<String, GameCtx>,
    pub routes: Vec<GameAddr>,
}

impl Host {
    /// Load every game of `root` (call it with the games locked, so what
    /// is read is what the messages will be checked against).
    pub fn load(root: &Path) -> Result<Host> {
        let mut games = BTreeMap::new();
        let mut routes = Vec::new();
        for p in game_dirs(root)? {
            let ctx = GameCtx::load(&p).with_context(|| format!("game in {}", p.display()))?;
            routes.push(GameAddr::of(&ctx.dir, &ctx.config));
            games.insert(ctx.config.game.clone(), ctx);
        }
        Ok(Host {
            dir: GameDir::new(root),
            games,
            routes,
        })
    }

    /// The address replies about no known game come from: the first
    /// game's address.
    pub fn address(&self) -> String {
        self.games
            .values()
            .next()
            .map(|g| g.config.mail_address().to_string())
            .unwrap_or_else(|| "empereur@localhost".to_string())
    }
}

/// The game directories under `root` (those holding a game.toml), sorted.
pub fn game_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .with_context(|| format!("cannot read {}", root.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("game.toml").is_file())
        .collect();
    out.sort();
    Ok(out)
}

/// Route one message to its game and ingest it there.
pub fn ingest_host(host: &Host, raw: &[u8], run: &mut Run) -> Result<Handled> {
    let inbox = host.dir.inbox();
    let a = archive::archive(&inbox, raw)?;
    let inc = parse::parse(raw);
    if a.stored == Stored::Done || run.is_done(&inbox, &a.hash) {
        run.log(&host.dir, format!("ingest {}: duplicate, skipped", short(&a.hash)));
        return Ok(Handled {
            hash: a.hash,
            message_id: inc.message_id,
            from: inc.from,
            game: None,
            verdict: Verdict::Duplicate,
            replies: vec![],
        });
    }
    let r = match route(&host.routes, &inc) {
        Route::Game(game) => {
            let ctx = &host.games[&game];
            run.log(&host.dir, format!("ingest {}: routed to game {game}", short(&a.hash)));
            let h = ingest_game(ctx, raw, run)?;
            run.mark_done(&inbox, &a.hash);
            return Ok(h);
        }
        Route::Refused(r) => r,
    };
    let from = inc.from.clone().unwrap_or_default();
    let player = host.routes.iter().any(|g| g.players.contains(&from));
    let msg = Received {
        raw,
        hash: &a.hash,
        inc: &inc,
    };
    let h = refuse_unrouted(&host.dir, &host.address(), &msg, r, player, run)?;
    run.mark_done(&inbox, &a.hash);
    Ok(h)
}

/// A message as received: its raw bytes, their hash (its name in the
/// inbox) and what was read from it.
pub struct Received<'a> {
    pub raw: &'a [u8],
    pub hash: &'a str,
    pub inc: &'a Incoming,
}

/// A message no game takes: journalled in the host's journal and
/// answered: a player (of any hosted game) is told why, naming no game;
/// anyone else gets a short fixed text that echoes nothing, once a day.
/// Automatic mail gets nothing; an unmailable sender is quarantined in
/// the host.
pub fn refuse_unrouted(
    host: &GameDir,
    address: &str,
    msg: &Received,
    r: Refusal,
    player: bool,
    run: &mut Run,
) -> Result<Handled> {
    let Received { raw, hash, inc } = *msg;
    let mut h = Handled {
        hash: hash.to_string(),
        message_id: inc.message_id.clone(),
        from: inc.from.clone(),
        game: None,
        verdict: Verdict::Refused(r.clone()),
        replies: vec![],
    };
    let from = inc.from.clone().unwrap_or_default();
    run.log(
        host,
        format!(
            "ingest {} from {}: refused ({}): {r}",
            short(hash),
            escape::line(if from.is_empty() { "-" } else { &from }, 200),
            r.code()
        ),
    );
    if inc.automatic || from.is_empty() || from == address.to_ascii_lowercase() {
        h.verdict = Verdict::Ignored;
        return Ok(h);
    }
    if let Err(why) = super::addressable(&from) {
        let reason = format!("the sender's address {why}; no reply can be sent");
        super::quarantine::put(host, raw, hash, &reason, run.now)?;
        run.log(host, format!("ingest {}: quarantined: {reason}", short(hash)));
        h.verdict = Verdict::Quarantined { reason };
        return Ok(h);
    }
    // A stranger gets one answer a day (a stable id per sender and day).
    let day = run.now.format("%Y-%m-%d").to_string();
    let (text, id) = if player {
        (
            format!(
                "Your message was NOT taken as orders, and nothing was stored:\n\n  {r}\n\nPut a line `GAME <id>` at the top of your orders.\n"
            ),
            outbox::stable_id(&["no-game", hash]),
        )
    } else {
        (
            STRANGER_REPLY.to_string(),
            outbox::stable_id(&["stranger", "host", &from, &day]),
        )
    };
    let m = OutMail {
        id,
        from: Addr::new(Some("Empereur"), address),
        to: vec![Addr::new(None, &from)],
        cc: vec![],
        subject: "Your message to a play-by-email game".into(),
        in_reply_to: None,
        body: text,
        attachments: vec![],
        date: run.now,
    };
    if outbox::queue_unanchored(host, &m)? != outbox::Queued::AlreadySent {
        h.replies.push(m.id);
    }
    Ok(h)
}

/// The message files of a Maildir (`cur/` and `new/`), in name order
/// (Maildir names start with the delivery time, so this is about arrival
/// order, and reproducible). Files are read one at a time by the caller,
/// so a large Maildir is never held in memory at once.
pub fn maildir_files(dir: &Path) -> Result<Vec<PathBuf>> {
    if !dir.join("new").is_dir() && !dir.join("cur").is_dir() {
        anyhow::bail!("{} is not a Maildir (no new/ or cur/)", dir.display());
    }
    let mut paths = Vec::new();
    for sub in ["cur", "new"] {
        let d = dir.join(sub);
        if !d.is_dir() {
            continue;
        }
        for e in std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))? {
            let p = e?.path();
            if p.is_file() {
                paths.push(p);
            }
        }
    }
    paths.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(paths)
}

/// Messages of an mbox file (mail-parser's reader undoes `>From `
/// escaping).
pub fn read_mbox(path: &Path) -> Result<Vec<Vec<u8>>> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut out = Vec::new();
    for m in mail_parser::mailbox::mbox::MessageIterator::new(std::io::BufReader::new(f)) {
        let m = m.map_err(|_| anyhow::anyhow!("{}: malformed mbox", path.display()))?;
        out.push(m.unwrap_contents());
    }
    Ok(out)
}

/// The open phase's deadline, if its clock runs.
fn open_deadline(ctx: &GameCtx, schedule: &crate::store::clock::Schedule, run: &mut Run) -> Option<DateTime<Utc>> {
    let now = run.now;
    let clock = run.times(ctx).ok()?.clock.as_ref()?;
    if clock.phase != Some(ctx.state.phase) {
        return None;
    }
    Some(clock.deadline(now, &ctx.config.deadlines, ctx.config.tz(), &schedule.absences))
}
