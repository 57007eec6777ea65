//! Ingest: one raw message in, one decision out, always in this order:
//! archive (fsynced) -> size limit -> parse -> ignore automatic mail ->
//! route (GAME line or recipient) -> authenticate -> check the orders ->
//! store the submission -> queue the reply -> journal -> mark processed.
//! A refused message gets a reply saying exactly why and nothing is
//! stored as orders. A message whose submission could not be stored
//! stays unprocessed (`new/`) and is tried again by the next run.

use super::archive::{self, Stored};
use super::auth::{self, Authenticated, PasswordCache, Refusal};
use super::outbox::{self, Addr, OutMail};
use super::parse::{self, Incoming};
use super::prescan::prescan;
use crate::orders;
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
}

impl GameCtx {
    pub fn load(root: &Path) -> Result<GameCtx> {
        let dir = GameDir::new(root);
        let config = dir.load_config()?;
        let scenario = dir.load_scenario(&config)?;
        let state = dir.load_state()?;
        let templates = Templates::load(root)?;
        Ok(GameCtx {
            dir,
            config,
            scenario,
            state,
            templates,
        })
    }
}

/// What a run remembers between messages: the clock, verified
/// passwords, and the batch not yet committed. Journal lines and the
/// `new/` -> `cur/` moves of processed messages are committed together by
/// [`Run::flush`] (one fsync each per batch, not per message); until then
/// a crash leaves the messages in `new/`, and the next run processes them
/// again (their replies have stable ids).
pub struct Run {
    pub now: DateTime<Utc>,
    pub cache: PasswordCache,
    journal: BTreeMap<PathBuf, (GameDir, Vec<(String, String)>)>,
    done: BTreeMap<PathBuf, Vec<String>>,
}

impl Run {
    pub fn new(now: DateTime<Utc>) -> Run {
        Run {
            now,
            cache: PasswordCache::default(),
            journal: BTreeMap::new(),
            done: BTreeMap::new(),
        }
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
    fn is_done(&self, inbox: &Path, hash: &str) -> bool {
        self.done.get(inbox).is_some_and(|v| v.iter().any(|h| h == hash))
    }
    /// Commit the batch: journal lines first, then mark the messages
    /// processed.
    pub fn flush(&mut self) -> Result<()> {
        for (_, (dir, lines)) in std::mem::take(&mut self.journal) {
            dir.journal_lines(&lines)?;
        }
        for (inbox, hashes) in std::mem::take(&mut self.done) {
            archive::mark_done_many(&inbox, &hashes)?;
        }
        Ok(())
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
    Refused(Refusal),
    Accepted {
        power: crate::ids::PowerId,
        receipt: String,
        accepted: usize,
        rejected: usize,
        sender_on_record: bool,
    },
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
            Verdict::Refused(r) => r.code(),
            Verdict::Accepted { .. } => "accepted",
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
    if a.stored == Stored::Done || run.is_done(&inbox, &a.hash) {
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
    process(ctx, raw, &a.hash, run)
}

/// Process again every message archived but not processed (a crash, or
/// a submission that could not be stored).
pub fn ingest_pending(ctx: &GameCtx, run: &mut Run) -> Result<Vec<Handled>> {
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
        out.push(process(ctx, &raw, &hash, run)?);
    }
    Ok(out)
}

fn short(hash: &str) -> &str {
    &hash[..12.min(hash.len())]
}

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
        inc.from.as_deref().unwrap_or("-"),
        inc.message_id.as_deref().unwrap_or("-")
    );
    if inc.automatic || inc.from.is_none() {
        run.log(&ctx.dir, format!("{who}: automatic mail or no sender, not answered"));
        run.mark_done(&ctx.dir.inbox(), hash);
        return Ok(h);
    }
    let refusal = refusal.or_else(|| inc.text.is_none().then_some(Refusal::NoText));
    let verdict = match refusal {
        Some(r) => Err(r),
        None => {
            let (text, _) = inc.text.as_ref().expect("checked above");
            auth::authenticate(
                &ctx.config,
                ctx.state.phase,
                inc.from.as_deref(),
                &prescan(text),
                &mut run.cache,
            )
        }
    };
    match verdict {
        Err(r) => {
            run.log(&ctx.dir, format!("{who}: refused ({}): {r}", r.code()));
            let view = AckView {
                game: ctx.config.game.clone(),
                phase: ctx.state.phase.to_string(),
                verdict: "refused".into(),
                refusal: Some(r.to_string()),
                ..AckView::default()
            };
            let body = ctx.templates.render("ack", &view)?;
            let id = reply(ctx, &inc, hash, body, None, run)?;
            h.replies.extend(id);
            h.verdict = Verdict::Refused(r);
            run.mark_done(&ctx.dir.inbox(), hash);
        }
        Ok(mut a) => {
            let (text, source) = inc.text.as_ref().expect("authenticated messages have text");
            // Absences and seconds (issue 8), then the orders.
            let mut schedule = ctx.dir.load_schedule()?;
            let meta = super::meta::apply(text, a.power, ctx.config.tz(), &mut schedule);
            if meta.changed {
                ctx.dir.save_schedule(&schedule)?;
                run.log(&ctx.dir, format!("{who}: {}", meta.notes.join(" ")));
            }
            if !a.sender_on_record
                && let (Some(second), Some(from)) = (schedule.seconds.get(&a.power), inc.from.as_deref())
                && second.eq_ignore_ascii_case(from)
            {
                a.sender_on_record = true;
            }
            let text = &meta.text;
            let checked = orders::check(text, &ctx.scenario, &ctx.state, Some(a.power));
            let sub = Submission {
                power: a.power,
                phase: ctx.state.phase,
                by: format!("mail:{}", inc.from.as_deref().unwrap_or("")),
                received: run.when(),
                entropy: checked.header.entropy.clone(),
                orders: checked.accepted.clone(),
            };
            let mut view = AckView {
                game: ctx.config.game.clone(),
                phase: ctx.state.phase.to_string(),
                power: Some(a.power.name().to_string()),
                source: source.to_string(),
                forged_note: forged_note(&a, inc.from.as_deref()),
                notes: meta.notes.clone(),
                deadline: deadline_shown(ctx, &schedule, run),
                ..AckView::default()
            }
            .with_checked(&checked, text);
            // A message of ABSENT / SECOND lines only is no submission:
            // it must not count as this power's (empty) orders.
            let meta_only =
                meta.changed && checked.accepted.is_empty() && !checked.diagnostics.iter().any(|d| d.is_error());
            let stored = if meta_only {
                Ok(None)
            } else {
                submission::save(&ctx.dir, &sub).map(Some)
            };
            if matches!(stored, Ok(Some(_))) {
                // Diplomacy by mail: the powers addressed hear of it now.
                super::compose::proposal_notices(
                    &ctx.dir,
                    &ctx.config,
                    &ctx.state,
                    a.power,
                    &sub.orders,
                    view.deadline.clone(),
                    run.now,
                )?;
            }
            let line = match &stored {
                Ok(None) => {
                    view.verdict = "noted".into();
                    h.verdict = Verdict::Noted { power: a.power };
                    format!("{who}: {} noted; orders unchanged", a.power.id())
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
                        "{who}: accepted for {} ({} orders accepted, {} rejected){}, receipt {receipt}",
                        a.power.id(),
                        view.accepted_count,
                        view.rejected_count,
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
            };
            run.log(&ctx.dir, line);
            let body = ctx.templates.render("ack", &view)?;
            let copy = (!a.sender_on_record).then(|| a.on_record.clone());
            h.replies.extend(reply(ctx, &inc, hash, body, copy, run)?);
            if stored.is_ok() {
                run.mark_done(&ctx.dir.inbox(), hash);
            }
        }
    }
    Ok(h)
}

fn forged_note(a: &Authenticated, from: Option<&str>) -> Option<String> {
    (!a.sender_on_record).then(|| {
        format!(
            "Note: these orders came from {}, not from the address on record for {} ({}). They were accepted because the password was right; a copy of this acknowledgement goes to the address on record.",
            from.unwrap_or("an unknown sender"),
            a.power.name(),
            a.on_record
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
    run: &mut Run,
) -> Result<Option<String>> {
    let Some(to) = &inc.from else { return Ok(None) };
    let subject = match &inc.subject {
        Some(s) if s.to_ascii_lowercase().starts_with("re:") => s.clone(),
        Some(s) if !s.trim().is_empty() => format!("Re: {s}"),
        _ => format!("Re: your mail to game {}", ctx.config.game),
    };
    let m = OutMail {
        id: outbox::stable_id(&["ack", &ctx.config.game, hash]),
        from: Addr::new(
            Some(&format!("Empereur {}", ctx.config.game)),
            ctx.config.mail_address(),
        ),
        to: vec![Addr::new(inc.from_name.as_deref(), to)],
        cc: copy.into_iter().map(|c| Addr::new(None, &c)).collect(),
        subject,
        in_reply_to: inc.message_id.clone(),
        body,
        attachments: vec![],
        date: run.now,
    };
    let q = outbox::queue(&ctx.dir, &m)?;
    if q == outbox::Queued::AlreadySent {
        run.log(&ctx.dir, format!("reply {} was sent already; not queued again", m.id));
    }
    Ok(Some(m.id))
}

/// A host directory of many games (`ingest --games DIR`): each
/// subdirectory with a `game.toml` is a game. The host keeps its own
/// Maildir (`DIR/mail/inbox`) where every message is archived before it
/// is routed, and its own outbox for replies to mail for no game.
pub struct Host {
    pub dir: GameDir,
    pub games: BTreeMap<String, GameCtx>,
    /// Game address (lower case) -> game id.
    pub addresses: BTreeMap<String, String>,
}

impl Host {
    pub fn load(root: &Path) -> Result<Host> {
        let mut games = BTreeMap::new();
        let mut addresses = BTreeMap::new();
        let mut entries: Vec<_> = std::fs::read_dir(root)
            .with_context(|| format!("cannot read {}", root.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("game.toml").is_file())
            .collect();
        entries.sort();
        for p in entries {
            let ctx = GameCtx::load(&p).with_context(|| format!("game in {}", p.display()))?;
            addresses.insert(ctx.config.mail_address().to_ascii_lowercase(), ctx.config.game.clone());
            games.insert(ctx.config.game.clone(), ctx);
        }
        Ok(Host {
            dir: GameDir::new(root),
            games,
            addresses,
        })
    }

    /// The address replies about no known game come from: the first
    /// game's address.
    fn address(&self) -> String {
        self.games
            .values()
            .next()
            .map(|g| g.config.mail_address().to_string())
            .unwrap_or_else(|| "empereur@localhost".to_string())
    }
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
    let named = inc.text.as_ref().and_then(|(t, _)| prescan(t).game);
    let target = match &named {
        Some(g) => host.games.keys().find(|k| k.eq_ignore_ascii_case(g)).cloned(),
        None => inc.recipients.iter().find_map(|r| host.addresses.get(r).cloned()),
    };
    if let Some(game) = target {
        let ctx = &host.games[&game];
        run.log(&host.dir, format!("ingest {}: routed to game {game}", short(&a.hash)));
        let h = ingest_game(ctx, raw, run)?;
        run.mark_done(&inbox, &a.hash);
        return Ok(h);
    }
    let r = match named {
        Some(n) => Refusal::UnknownGame { named: n },
        None => Refusal::NoGame,
    };
    let mut h = Handled {
        hash: a.hash.clone(),
        message_id: inc.message_id.clone(),
        from: inc.from.clone(),
        game: None,
        verdict: Verdict::Refused(r.clone()),
        replies: vec![],
    };
    run.log(
        &host.dir,
        format!(
            "ingest {} from {}: refused ({}): {r}",
            short(&a.hash),
            inc.from.as_deref().unwrap_or("-"),
            r.code()
        ),
    );
    if let (Some(from), false) = (&inc.from, inc.automatic) {
        let games: Vec<&str> = host.games.keys().map(String::as_str).collect();
        let body = format!(
            "Your message was NOT taken as orders, and nothing was stored:\n\n  {r}\n\nGames hosted here: {}.\nPut a line `GAME <id>` at the top of your orders.\n",
            games.join(", ")
        );
        let m = OutMail {
            id: outbox::stable_id(&["no-game", &a.hash]),
            from: Addr::new(Some("Empereur"), &host.address()),
            to: vec![Addr::new(inc.from_name.as_deref(), from)],
            cc: vec![],
            subject: format!("Re: {}", inc.subject.as_deref().unwrap_or("your orders")),
            in_reply_to: inc.message_id.clone(),
            body,
            attachments: vec![],
            date: run.now,
        };
        outbox::queue(&host.dir, &m)?;
        h.replies.push(m.id);
    }
    run.mark_done(&inbox, &a.hash);
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

/// The open phase's deadline in the game's time zone, if its clock runs.
fn deadline_shown(ctx: &GameCtx, schedule: &crate::store::clock::Schedule, run: &Run) -> Option<String> {
    let clock = ctx.dir.load_clock().ok().flatten()?;
    if clock.phase != Some(ctx.state.phase) {
        return None;
    }
    let tz = ctx.config.tz();
    let d = clock.deadline(run.now, &ctx.config.deadlines, tz, &schedule.absences);
    Some(d.with_timezone(&tz).format("%a %Y-%m-%d %H:%M %Z").to_string())
}
