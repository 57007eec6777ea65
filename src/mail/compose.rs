//! Mail the game sends on its own: the phase-opening mail to every
//! player and the turn reports after `resolve`, one per power from its own
//! view plus the moderator's full report. Queued in the outbox with
//! stable ids (one per game, phase, kind and recipient), so composing
//! twice never sends twice.

use super::outbox::{self, Addr, FileAttachment, OutMail};
use crate::ids::PowerId;
use crate::report::{self, PhaseOpeningView, Templates, TurnReportView};
use crate::rules::{self, Outcome};
use crate::scenario::Scenario;
use crate::state::State;
use crate::store::{GameConfig, GameDir};
use anyhow::Result;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn game_from(config: &GameConfig) -> Addr {
    Addr::new(Some(&format!("Empereur {}", config.game)), config.mail_address())
}

/// A player's address as the game's mail writes it: their name, then
/// the address on record.
pub fn player_addr(p: &crate::store::config::PlayerEntry) -> Addr {
    Addr::new(Some(&p.name), &p.email)
}

/// The moderator's address as the game's mail writes it.
pub fn moderator_addr(config: &GameConfig) -> Addr {
    Addr::new(Some(&config.moderator.name), &config.moderator.email)
}

/// Every player with their power, then the moderator (`None`): the
/// table a mail to everyone goes to.
pub fn table(config: &GameConfig) -> Vec<(Option<PowerId>, Addr)> {
    let mut to: Vec<(Option<PowerId>, Addr)> = config.players.iter().map(|p| (Some(p.power), player_addr(p))).collect();
    to.push((None, moderator_addr(config)));
    to
}

/// The addresses of [`table`], but `except`'s player. A mail to several
/// of them still gives each a copy of their own (`outbox::queue`), so
/// one refused address never holds back the others.
pub fn everyone(config: &GameConfig, except: Option<PowerId>) -> Vec<Addr> {
    table(config)
        .into_iter()
        .filter(|(p, _)| p.is_none() || *p != except)
        .map(|(_, a)| a)
        .collect()
}

/// A mail the game sends on its own, from the game's address: it answers
/// nothing and carries no file (set `attachments` for one that does).
pub fn game_mail(
    config: &GameConfig,
    id: String,
    to: Vec<Addr>,
    subject: String,
    body: String,
    now: DateTime<Utc>,
) -> OutMail {
    OutMail {
        id,
        from: game_from(config),
        to,
        cc: vec![],
        subject,
        in_reply_to: None,
        body,
        attachments: vec![],
        date: now,
    }
}

/// The order template of a power: the header lines filled in, then as
/// comment lines each unit with its commanders, movement allowance and
/// where it can go this phase, and example orders of the phase
/// (`report::guide`), END.
pub fn order_template(config: &GameConfig, scenario: &Scenario, state: &State, power: PowerId) -> String {
    let mut t = format!(
        "GAME {}\nPOWER {}\nPASSWORD \nPHASE {}\n\n",
        config.game,
        power.id(),
        state.phase
    );
    // Comment lines, wrapped for a mail client; a wrapped line goes on
    // indented under its first.
    let wrap = textwrap::Options::new(report::WIDTH)
        .initial_indent("# ")
        .subsequent_indent("#     ")
        .break_words(false)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    for u in report::guide::guide(scenario, state, power) {
        if u.is_empty() {
            t.push_str("#\n");
        } else {
            t.push_str(&textwrap::fill(&u, &wrap));
            t.push('\n');
        }
    }
    t.push_str("\nEND\n");
    t
}

/// Which recipients a composed mail goes to, and whether it is a resend.
#[derive(Clone, Debug, Default)]
pub struct Recipients {
    /// Only these (power ids, `moderator`); everyone when `None`.
    pub only: Option<BTreeSet<String>>,
    /// Not these (already mailed).
    pub skip: BTreeSet<String>,
    /// A resend: its tag (the time it was asked for) makes a new message
    /// id, so a mail sent once can be sent again.
    pub resend: Option<String>,
}

impl Recipients {
    fn wants(&self, who: &str) -> bool {
        !self.skip.contains(who) && self.only.as_ref().is_none_or(|o| o.contains(who))
    }
    fn id(&self, parts: &[&str]) -> String {
        match &self.resend {
            Some(tag) => {
                let mut v = parts.to_vec();
                v.push("resend");
                v.push(tag);
                outbox::stable_id(&v)
            }
            None => outbox::stable_id(parts),
        }
    }
    fn subject(&self, s: String) -> String {
        if self.resend.is_some() {
            format!("{s} (resent)")
        } else {
            s
        }
    }
}

/// The opening of one phase, as some history entry (or the game's
/// creation) opened it.
pub struct Opening<'a> {
    /// The state with the phase open.
    pub state: &'a State,
    /// The history entry that opened it, or `mailed::START`.
    pub entry: String,
    /// The deadline, written in each reader's zone (`zone::shown`).
    pub deadline: Option<DateTime<Utc>>,
    pub commitment: Option<String>,
    /// Set when the phase was resolved before this mail could go out:
    /// the later entry that closed it. The mail then is for the record
    /// (its commitment is what the report lets players check).
    pub closed_by: Option<String>,
    /// Per power: the diplomatic proposals pending for and from it.
    pub proposals: BTreeMap<PowerId, Vec<String>>,
}

/// Queue the phase-opening mail of the open phase for every player.
/// Returns the ids queued.
pub fn phase_opening(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    scenario: &Scenario,
    state: &State,
    deadline: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<Vec<String>> {
    let head = crate::store::history::read_head(dir)?;
    let o = Opening {
        state,
        entry: if head.last.is_empty() {
            super::mailed::START.to_string()
        } else {
            head.last
        },
        deadline,
        commitment: crate::store::phase::commitment(dir)?,
        closed_by: None,
        proposals: BTreeMap::new(),
    };
    let sent = opening_to(dir, templates, config, scenario, &o, &Recipients::default(), now)?;
    Ok(sent.into_iter().map(|(_, id)| id).collect())
}

/// Queue the opening `o` for the players `to` wants. Returns (power id,
/// message id) of each mail queued, in the players' order.
pub fn opening_to(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    scenario: &Scenario,
    o: &Opening<'_>,
    to: &Recipients,
    now: DateTime<Utc>,
) -> Result<Vec<(String, String)>> {
    let mut ids = Vec::new();
    for p in config.players.iter().filter(|p| to.wants(p.power.id())) {
        let m = opening_mail(dir, templates, config, scenario, o, p, to, now)?;
        outbox::queue(dir, &m)?;
        ids.push((p.power.id().to_string(), m.id));
    }
    for w in config.observers.iter().filter(|w| to.wants(&observer_key(w))) {
        let m = observer_opening(dir, templates, config, scenario, o, w, to, now)?;
        outbox::queue(dir, &m)?;
        ids.push((observer_key(w), m.id));
    }
    Ok(ids)
}

/// The commitment of the opening `o` as its mail shows it: docs/dice.md
/// 4, a phase announced with physical dice says so under it.
fn commitment_shown(dir: &GameDir, o: &Opening<'_>) -> Result<Option<String>> {
    let physical = crate::store::phase::physical_announced(dir, o.state.phase)?;
    Ok(o.commitment.clone().map(|c| {
        if physical {
            format!("{c}\n\nDice: PHYSICAL. The moderator announced before this phase opened that\nit will be resolved with physical dice he rolls and types in: they\ncannot be checked against this commitment.")
        } else {
            c
        }
    }))
}

/// The public opening of `o` for the observer `w` (not queued): the
/// phase, its deadline in the game's time zone, who is to move, the dice
/// commitment and the public map; no units, no order template, no
/// proposals (the site's rule: what every power may see).
#[allow(clippy::too_many_arguments)]
fn observer_opening(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    scenario: &Scenario,
    o: &Opening<'_>,
    w: &crate::store::config::Person,
    to: &Recipients,
    now: DateTime<Utc>,
) -> Result<OutMail> {
    let state = o.state;
    let view = PhaseOpeningView {
        game: config.game.clone(),
        phase: state.phase.to_string(),
        // The public reads the game's zone, as on the site.
        deadline: o.deadline.map(|d| crate::zone::shown(d, config.tz())),
        power: w.name.clone(),
        role: "observer".into(),
        movers: rules::roles(scenario, state)
            .must
            .iter()
            .map(|p| p.name().to_string())
            .collect(),
        units: Vec::new(),
        template: String::new(),
        commitment: commitment_shown(dir, o)?,
        closed_by: o.closed_by.clone(),
        proposals: Vec::new(),
        resent: to.resend.is_some(),
    };
    let phase = state.phase.to_string();
    let attachments = public_map_pictures(scenario, &state.public_view(), None, &phase)?;
    Ok(OutMail {
        id: to.id(&["phase-opening", &config.game, &phase, &o.entry, &observer_key(w)]),
        from: game_from(config),
        to: vec![Addr::new(Some(&w.name), &w.email)],
        cc: vec![],
        subject: to.subject(format!("Empereur {}: phase {phase} is open (observer)", config.game)),
        in_reply_to: None,
        body: templates.render("phase-opening", &view)? + "\n" + OBSERVER_NOTE + "\n",
        attachments,
        date: now,
    })
}

/// The opening `o` as one player's mail, with the map of the position
/// (not queued).
#[allow(clippy::too_many_arguments)]
fn opening_mail(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    scenario: &Scenario,
    o: &Opening<'_>,
    p: &crate::store::config::PlayerEntry,
    to: &Recipients,
    now: DateTime<Utc>,
) -> Result<OutMail> {
    let state = o.state;
    let roles = rules::roles(scenario, state);
    let commitment = commitment_shown(dir, o)?;
    let role = if roles.must.contains(&p.power) {
        "must"
    } else if roles.may.contains(&p.power) {
        "may"
    } else {
        "none"
    };
    let view = PhaseOpeningView {
        game: config.game.clone(),
        phase: state.phase.to_string(),
        deadline: o.deadline.map(|d| crate::zone::shown(d, config.player_tz(p.power))),
        power: p.power.name().to_string(),
        role: role.to_string(),
        movers: roles.must.iter().map(|p| p.name().to_string()).collect(),
        units: report::unit_lines(scenario, state, p.power),
        template: order_template(config, scenario, state, p.power),
        commitment,
        closed_by: o.closed_by.clone(),
        proposals: o.proposals.get(&p.power).cloned().unwrap_or_default(),
        resent: to.resend.is_some(),
    };
    Ok(OutMail {
        attachments: map_pictures(scenario, state, None, Some(p.power), &state.phase.to_string())?,
        ..game_mail(
            config,
            to.id(&[
                "phase-opening",
                &config.game,
                &state.phase.to_string(),
                &o.entry,
                p.power.id(),
            ]),
            vec![player_addr(p)],
            to.subject(format!("Empereur {}: phase {} is open", config.game, state.phase)),
            templates.render("phase-opening", &view)?,
            now,
        )
    })
}

/// Queue a reminder to each power in `missing` (no orders yet for the
/// open phase). The id includes the day (UTC), so reminding twice in a
/// day sends one mail and a reminder the next day is a new one. Returns
/// the ids queued.
pub fn reminders(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    state: &State,
    missing: &[PowerId],
    deadline: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<Vec<String>> {
    let when = ReminderTimes {
        deadline,
        grace_ends: None,
        grace_after: None,
    };
    reminders_in(dir, templates, config, state, missing, &when, now)
}

/// When a reminder says the phase resolves: the deadline, and past it
/// the end of the grace period (each written in its reader's zone).
pub struct ReminderTimes {
    pub deadline: Option<DateTime<Utc>>,
    pub grace_ends: Option<DateTime<Utc>>,
    /// Before the deadline: when grace would end. The reminder says it,
    /// so that the first day of grace needs no reminder of its own
    /// (`schedule::PhaseClock::reminders_due`).
    pub grace_after: Option<DateTime<Utc>>,
}

/// [`reminders`], past the deadline: `grace_ends` is when the phase resolves with defaults for whoever is
/// still missing, and the mail says so.
pub fn reminders_in(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    state: &State,
    missing: &[PowerId],
    when: &ReminderTimes,
    now: DateTime<Utc>,
) -> Result<Vec<String>> {
    let mut ids = Vec::new();
    for p in config.players.iter().filter(|p| missing.contains(&p.power)) {
        let view = report::ReminderView {
            game: config.game.clone(),
            phase: state.phase.to_string(),
            power: p.power.name().to_string(),
            deadline: when.deadline.map(|d| crate::zone::shown(d, config.player_tz(p.power))),
            grace_ends: when
                .grace_ends
                .map(|d| crate::zone::shown(d, config.player_tz(p.power))),
            grace_after: when
                .grace_after
                .map(|d| crate::zone::shown(d, config.player_tz(p.power))),
        };
        let body = templates.render("reminder", &view)?;
        // Issue 37: the mail that opens the phase for this player, if it
        // has not gone yet (a hand resolution mailed only now), carries
        // the reminder at its top, instead of a second mail.
        if let Some(id) = opened_here(dir, config, state, p.power, &body, now)? {
            ids.push(id);
            continue;
        }
        let m = game_mail(
            config,
            outbox::stable_id(&[
                "reminder",
                &config.game,
                &state.phase.to_string(),
                p.power.id(),
                &now.format("%Y-%m-%d").to_string(),
            ]),
            vec![player_addr(p)],
            format!("Empereur {}: orders for {} are due", config.game, state.phase),
            body,
            now,
        );
        outbox::queue(dir, &m)?;
        ids.push(m.id);
    }
    Ok(ids)
}

/// The mail not sent yet that opens the open phase for `power` (its
/// phase mail, or its opening alone), with the reminder `body` put at
/// its top (`mail::fold::prepend`); `None` when there is none to carry it.
fn opened_here(
    dir: &GameDir,
    config: &GameConfig,
    state: &State,
    power: PowerId,
    body: &str,
    now: DateTime<Utc>,
) -> Result<Option<String>> {
    let head = crate::store::history::read_head(dir)?.last;
    let entry = if head.is_empty() {
        super::mailed::START.to_string()
    } else {
        head
    };
    let phase = state.phase.to_string();
    let to = Recipients::default();
    for id in [
        to.id(&["phase-mail", &config.game, &entry, power.id()]),
        to.id(&["phase-opening", &config.game, &phase, &entry, power.id()]),
    ] {
        if super::fold::prepend(dir, &id, &super::fold::text_of(body), now)? {
            dir.journal_line(
                &now.to_rfc3339(),
                &format!(
                    "fold: the reminder to {} goes inside {id}, the mail not sent yet that opens {phase}",
                    power.id()
                ),
            )?;
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// What a resolved phase produced, as the reports need it.
pub struct Resolved<'a> {
    /// The phase that was resolved (its id).
    pub phase: String,
    /// The history entry that resolved it: part of the reports' ids, so a
    /// phase resolved again after an undo is reported again.
    pub entry: String,
    /// The state after resolution (the next phase open).
    pub after: &'a State,
    pub outcomes: &'a [Outcome],
    /// The revealed seed (hex) and the entropy lines folded in.
    pub seed: Option<String>,
    pub entropy: Vec<String>,
    /// The dice log as written to history, if any.
    pub dice_log: Option<Vec<u8>>,
    /// For the map pictures and the standings: the scenario and the state
    /// the phase started from (`None`: neither).
    pub pictures: Option<(&'a Scenario, &'a State)>,
    /// The orders lock of the phase as players read it (docs/dice.md 7),
    /// shown under the report: the lock no longer goes out in a mail of
    /// its own.
    pub lock: Option<String>,
    /// Recipients (power ids, `moderator`) whose view of the map has not
    /// changed since the last map they were mailed, each with the line
    /// that says so (`Map: unchanged since …`): they get that line
    /// instead of the picture.
    pub map_unchanged: BTreeMap<String, String>,
}

/// The map picture of one recipient (`crate::picture`, per-power view):
/// `map-<phase>-<power>.png`; none when the scenario has no geometry.
/// The SVG is left out of mail (the archive and the site have it): the
/// PNG shows the same.
/// [`map_pictures`] of a public view (no viewer), named `-public` as an
/// observer receives them rather than `-moderator` (whose view a picture
/// with no viewer otherwise is).
fn public_map_pictures(
    scenario: &Scenario,
    public: &State,
    phase: Option<(&State, &[Outcome])>,
    phase_id: &str,
) -> Result<Vec<FileAttachment>> {
    let mut files = map_pictures(scenario, public, phase, None, phase_id)?;
    for f in &mut files {
        f.name = f.name.replace("-moderator.", "-public.");
    }
    Ok(files)
}

pub fn map_pictures(
    scenario: &Scenario,
    state: &State,
    phase: Option<(&State, &[Outcome])>,
    viewer: Option<PowerId>,
    phase_id: &str,
) -> Result<Vec<FileAttachment>> {
    if !crate::picture::wanted(&scenario.map) {
        return Ok(vec![]);
    }
    let (before, outcomes) = match phase {
        Some((b, o)) => (Some(b), o),
        None => (None, &[][..]),
    };
    let scene = crate::picture::Scene::new(scenario, state, before, outcomes, viewer, phase_id);
    Ok(scene
        .files()?
        .into_iter()
        .filter(|(_, content_type, _)| *content_type == "image/png")
        .map(|(name, content_type, bytes)| FileAttachment {
            name,
            content_type: content_type.into(),
            bytes,
        })
        .collect())
}

/// Queue the turn reports: one per player from that power's view, with
/// its state file, the dice log and a JSON report attached; and the
/// moderator's full report. Returns the ids queued.
pub fn turn_reports(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    r: &Resolved<'_>,
    now: DateTime<Utc>,
) -> Result<Vec<String>> {
    let sent = turn_reports_to(dir, templates, config, r, &BTreeMap::new(), &Recipients::default(), now)?;
    Ok(sent.into_iter().map(|(_, id)| id).collect())
}

/// Queue the turn reports for the recipients `to` wants (power ids,
/// `moderator`), each listing the proposals pending for and from its
/// power. Returns (recipient, message id) of each, in order.
pub fn turn_reports_to(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    r: &Resolved<'_>,
    proposals: &BTreeMap<PowerId, Vec<String>>,
    to: &Recipients,
    now: DateTime<Utc>,
) -> Result<Vec<(String, String)>> {
    let mut ids = Vec::new();
    let chart = vp_chart(dir, r)?;
    for (power, addr) in table(config) {
        let who = power.map(|p| p.id()).unwrap_or("moderator");
        if !to.wants(who) {
            continue;
        }
        let m = report_mail(dir, templates, config, r, &chart, proposals, power, addr, to, now)?;
        outbox::queue(dir, &m)?;
        ids.push((who.to_string(), m.id));
    }
    ids.extend(observer_reports(dir, templates, config, r, to, chart, now)?);
    Ok(ids)
}

/// The VP chart, `vp-<phase>.png` (`report::standings`): one for all
/// the reports of a phase, when they carry pictures.
fn vp_chart(dir: &GameDir, r: &Resolved<'_>) -> Result<Option<FileAttachment>> {
    Ok(match r.pictures {
        Some(_) => {
            let (name, content_type, bytes) = report::standings::vp_chart_png(dir, &r.entry, &r.phase)?;
            Some(FileAttachment {
                name,
                content_type: content_type.into(),
                bytes,
            })
        }
        None => None,
    })
}

/// One recipient's turn report (`power` `None`: the moderator's), not
/// queued: the report, the orders lock, the map or the line saying it is
/// unchanged, the power's state file (each phase: DESIGN.md, "Who uses
/// it") and the entry's anchors.
#[allow(clippy::too_many_arguments)]
fn report_mail(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    r: &Resolved<'_>,
    chart: &Option<FileAttachment>,
    proposals: &BTreeMap<PowerId, Vec<String>>,
    power: Option<PowerId>,
    addr: Addr,
    to: &Recipients,
    now: DateTime<Utc>,
) -> Result<OutMail> {
    let who = power.map(|p| p.id()).unwrap_or("moderator");
    let events = TurnReportView::events_for(r.outcomes, power);
    let json = serde_json::json!({
        "game": config.game,
        "phase": r.phase,
        "power": power.map(|p| p.id()),
        "outcomes": r.outcomes.iter().filter(|o| power.is_none_or(|p| o.visibility.sees(p))).collect::<Vec<_>>(),
        "seed": r.seed,
        "entropy": r.entropy,
        "next_phase": r.after.phase.to_string(),
    });
    let mut attachments = Vec::new();
    attachments.push(FileAttachment::state(r.after, power));
    if let Some(log) = &r.dice_log {
        attachments.push(FileAttachment {
            name: "dice-log.txt".into(),
            content_type: "text/plain; charset=utf-8".into(),
            bytes: match power {
                Some(p) => crate::store::history::dice_log_for(log, r.outcomes, p)?,
                None => log.clone(),
            },
        });
    }
    attachments.push(FileAttachment {
        name: "report.json".into(),
        content_type: "application/json".into(),
        bytes: serde_json::to_vec_pretty(&json)?,
    });
    let unchanged = r.map_unchanged.get(who);
    if let Some((scenario, before)) = r.pictures
        && unchanged.is_none()
    {
        attachments.extend(map_pictures(
            scenario,
            r.after,
            Some((before, r.outcomes)),
            power,
            &r.phase,
        )?);
    }
    attachments.extend(chart.clone());
    let standings = r
        .pictures
        .map(|(scenario, before)| {
            report::standings::Standings::new(scenario, before, r.after, r.outcomes, power).lines()
        })
        .unwrap_or_default();
    // Gold and VP are the Standings table's: the `Now:` block keeps only
    // what the table does not say (units on the map, kingdoms).
    let summary = match (power, r.pictures) {
        (Some(p), Some((scenario, _))) if !standings.is_empty() => report::position_lines(scenario, r.after, p),
        (Some(p), Some((scenario, _))) => report::state_summary(scenario, r.after, p),
        // without the scenario (a report put together by hand) there are
        // no names to write the units and kingdoms by: the money line only
        (Some(p), None) => vec![report::money_line(r.after, p)],
        (None, _) if !standings.is_empty() => Vec::new(),
        (None, _) => config
            .players
            .iter()
            .map(|p| report::money_line(r.after, p.power))
            .collect(),
    };
    let view = TurnReportView {
        game: config.game.clone(),
        phase: r.phase.clone(),
        power: power.map(|p| p.name().to_string()),
        events,
        summary,
        seed: r.seed.clone(),
        entropy: r.entropy.clone(),
        next_phase: Some(r.after.phase.to_string()),
        attachments: attachments.iter().map(|a| a.name.clone()).collect(),
        standings,
        proposals: power.and_then(|p| proposals.get(&p).cloned()).unwrap_or_default(),
        resent: to.resend.is_some(),
    };
    let mut body = templates.render("turn-report", &view)?;
    if let Some(line) = unchanged {
        body = insert_before_footer(&body, &config.game, &format!("{}\n", wrap_prose(line)));
    }
    if let Some(lock) = &r.lock {
        body = insert_before_footer(&body, &config.game, &format!("{}\n", wrap_prose(lock)));
    }
    Ok(OutMail {
        id: to.id(&["turn-report", &config.game, &r.entry, who]),
        from: game_from(config),
        to: vec![addr],
        cc: vec![],
        subject: to.subject(format!(
            "Empereur {}: report of {} for {}",
            config.game,
            r.phase,
            power.map(|p| p.name()).unwrap_or("the moderator")
        )),
        in_reply_to: None,
        // docs/dice.md, "Anchors": the entry reported and its seed.
        body: body + "\n" + &crate::store::history::entry_anchors(dir, &r.entry)?,
        attachments,
        date: now,
    })
}

/// `text` with each line of prose wrapped at 72 columns; a line holding
/// a hash, a commitment or a seed (a word of 40 characters or more) is
/// left whole, so it can be compared and copied as it is.
fn wrap_prose(text: &str) -> String {
    let wrap = textwrap::Options::new(72)
        .break_words(false)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    text.lines()
        .map(|l| {
            if l.split_whitespace().any(|w| w.len() >= 40) {
                l.to_string()
            } else {
                textwrap::fill(l, &wrap)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The footer the default templates end with.
fn footer(game: &str) -> String {
    format!("--\nEmpereur, for game {game}.\n")
}

/// `body` with `text` (and a blank line) put before its footer, or at
/// its end when a game's own template has another footer.
fn insert_before_footer(body: &str, game: &str, text: &str) -> String {
    match body.strip_suffix(&footer(game)) {
        Some(head) => format!("{}\n\n{text}\n{}", head.trim_end(), footer(game)),
        None => format!("{}\n\n{text}", body.trim_end()),
    }
}

/// Queue the phase mail of the players `to` wants: for each, one mail
/// holding the report of the phase just resolved (with its orders lock
/// and map), then `Now: <who> to move` and the opening of the phase it
/// opened (deadline, commitment, order template), instead of a report
/// and an opening apart. The moderator's report goes with
/// [`turn_reports_to`]. Returns (power id, message id) of each mail.
#[allow(clippy::too_many_arguments)]
pub fn phase_mails_to(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    scenario: &Scenario,
    r: &Resolved<'_>,
    o: &Opening<'_>,
    to: &Recipients,
    now: DateTime<Utc>,
) -> Result<Vec<(String, String)>> {
    let mut ids = Vec::new();
    let chart = vp_chart(dir, r)?;
    let roles = rules::roles(scenario, o.state);
    let movers: Vec<&str> = roles.must.iter().map(|p| p.name()).collect();
    let now_line = if movers.is_empty() {
        format!("Now: phase {} is open; no power must order.", o.state.phase)
    } else {
        format!("Now: {} to move (phase {}).", movers.join(", "), o.state.phase)
    };
    // Issue 37: an answer to a player not sent yet goes inside their
    // phase mail (`mail::fold`); a resend is a copy, and carries none.
    let answers = match to.resend {
        None => super::fold::answers_queued(dir)?,
        Some(_) => BTreeMap::new(),
    };
    for p in config.players.iter().filter(|p| to.wants(p.power.id())) {
        let addr = player_addr(p);
        let folded = answers
            .get(&p.email.to_ascii_lowercase())
            .map(Vec::as_slice)
            .unwrap_or_default();
        // The proposals pending are listed once, in the opening.
        let report = report_mail(
            dir,
            templates,
            config,
            r,
            &chart,
            &BTreeMap::new(),
            Some(p.power),
            addr,
            to,
            now,
        )?;
        let opening = opening_mail(dir, templates, config, scenario, o, p, to, now)?;
        let mut body = joined(dir, config, r, &report.body, &now_line, &opening.body)?;
        if !folded.is_empty() {
            body = super::fold::top(folded, &r.phase) + &body;
        }
        let m = OutMail {
            id: to.id(&["phase-mail", &config.game, &r.entry, p.power.id()]),
            from: game_from(config),
            to: report.to,
            cc: vec![],
            subject: to.subject(format!(
                "Empereur {}: report of {} for {}; phase {} is open",
                config.game,
                r.phase,
                p.power.name(),
                o.state.phase
            )),
            // It answers the player's last mail of the run (RFC 3834:
            // auto-replied, threaded under it).
            in_reply_to: folded.last().map(|a| a.in_reply_to.clone()),
            body,
            attachments: report.attachments,
            date: now,
        };
        // Folded only once the phase mail holding them is queued; one that
        // went out already (or may have) leaves them to go on their own.
        if matches!(outbox::queue(dir, &m)?, outbox::Queued::New | outbox::Queued::Replaced) {
            for a in folded {
                super::fold::fold_away(dir, &a.id, &m.id, now)?;
            }
        }
        ids.push((p.power.id().to_string(), m.id));
    }
    // The observers' phase mail: the public report, then the public
    // opening.
    for w in config.observers.iter().filter(|w| to.wants(&observer_key(w))) {
        let report = observer_report(dir, templates, config, r, w, to, &chart, now)?;
        let opening = observer_opening(dir, templates, config, scenario, o, w, to, now)?;
        let m = OutMail {
            id: to.id(&["phase-mail", &config.game, &r.entry, &observer_key(w)]),
            body: joined(dir, config, r, &report.body, &now_line, &opening.body)?,
            subject: to.subject(format!(
                "Empereur {}: public report of {}; phase {} is open (observer)",
                config.game, r.phase, o.state.phase
            )),
            ..report
        };
        outbox::queue(dir, &m)?;
        ids.push((observer_key(w), m.id));
    }
    Ok(ids)
}

/// One phase mail's body: the report's text (`report`, its footer, its
/// observer's note and its anchors cut), a rule, `now_line`, the
/// opening's text, then the anchors: they stay last, where
/// `verify --mails` reads them.
fn joined(
    dir: &GameDir,
    config: &GameConfig,
    r: &Resolved<'_>,
    report: &str,
    now_line: &str,
    opening: &str,
) -> Result<String> {
    let anchors = crate::store::history::entry_anchors(dir, &r.entry)?;
    let text = report.strip_suffix(&anchors).unwrap_or(report).trim_end();
    let text = text.strip_suffix(OBSERVER_NOTE).unwrap_or(text).trim_end();
    let foot = footer(&config.game);
    let report_text = text.strip_suffix(foot.trim_end()).unwrap_or(text).trim_end();
    Ok(format!(
        "{report_text}\n\n{}\n\n{}\n\n{}\n",
        "=".repeat(72),
        wrap_prose(now_line),
        opening.trim_end()
    ) + "\n"
        + &anchors)
}

/// The recipient key of an observer (`mail::mailed`, [`Recipients`]).
pub fn observer_key(o: &crate::store::config::Person) -> String {
    format!("observer:{}", o.email.trim().to_ascii_lowercase())
}

/// The observers' report of `r`, queued for each observer `to` wants.
fn observer_reports(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    r: &Resolved<'_>,
    to: &Recipients,
    chart: Option<FileAttachment>,
    now: DateTime<Utc>,
) -> Result<Vec<(String, String)>> {
    let mut ids = Vec::new();
    for o in config.observers.iter().filter(|o| to.wants(&observer_key(o))) {
        let m = observer_report(dir, templates, config, r, o, to, &chart, now)?;
        outbox::queue(dir, &m)?;
        ids.push((observer_key(o), m.id));
    }
    Ok(ids)
}

/// An observer's report of `r` (not queued): what the public site shows
/// of the entry (`site::privacy::public_outcomes`, the public Standings,
/// the map drawn from the public states), and nothing else: no state
/// file, no dice log, no JSON, no proposals.
#[allow(clippy::too_many_arguments)]
fn observer_report(
    dir: &GameDir,
    templates: &Templates,
    config: &GameConfig,
    r: &Resolved<'_>,
    o: &crate::store::config::Person,
    to: &Recipients,
    chart: &Option<FileAttachment>,
    now: DateTime<Utc>,
) -> Result<OutMail> {
    let who = observer_key(o);
    let public = crate::site::privacy::public_outcomes(r.outcomes);
    let after = r.after.public_view();
    let mut attachments = match r.pictures {
        Some((scenario, before)) => {
            public_map_pictures(scenario, &after, Some((&before.public_view(), &public)), &r.phase)?
        }
        None => Vec::new(),
    };
    // Every power's VP is public (the site shows it): the chart too.
    attachments.extend(chart.clone());
    let standings = r
        .pictures
        .map(|(scenario, before)| report::standings::Standings::public(scenario, before, r.after, &public).lines())
        .unwrap_or_default();
    let view = TurnReportView {
        game: config.game.clone(),
        phase: r.phase.clone(),
        power: None,
        events: TurnReportView::events_for(&public, None),
        // Gold and VP are the table's; without one, the site's list.
        summary: if standings.is_empty() {
            crate::site::public_standings(&after)
                .into_iter()
                .map(|s| format!("{}: {} Gold, {} VP", s.power, s.gold, s.vp))
                .collect()
        } else {
            Vec::new()
        },
        seed: r.seed.clone(),
        entropy: r.entropy.clone(),
        next_phase: Some(after.phase.to_string()),
        attachments: attachments.iter().map(|a| a.name.clone()).collect(),
        standings,
        proposals: Vec::new(),
        resent: to.resend.is_some(),
    };
    Ok(OutMail {
        id: to.id(&["turn-report", &config.game, &r.entry, &who]),
        from: game_from(config),
        to: vec![Addr::new(Some(&o.name), &o.email)],
        cc: vec![],
        subject: to.subject(format!(
            "Empereur {}: public report of {} (observer)",
            config.game, r.phase
        )),
        in_reply_to: None,
        body: templates.render("turn-report", &view)?
            + "\n"
            + OBSERVER_NOTE
            + "\n"
            + &crate::store::history::entry_anchors(dir, &r.entry)?,
        attachments,
        date: now,
    })
}

/// What closes an observer's every mail.
const OBSERVER_NOTE: &str = "You observe this game: you get what is public, and your mail is never orders.";

/// The proposals, offers and cessions of the open phase `phase` whose
/// answer is awaited (`report::awaited_answers`, from the stored
/// submissions): they hold the phase open until its deadline.
pub fn awaited_answers(
    dir: &GameDir,
    config: &GameConfig,
    phase: crate::ids::PhaseId,
) -> Result<Vec<report::Proposal>> {
    let subs: Vec<_> = crate::store::submission::load_all(dir)?
        .into_iter()
        .filter(|(_, s)| s.phase == phase)
        .collect();
    let passed: Vec<PowerId> = subs.iter().filter(|(_, s)| s.passed).map(|(p, _)| *p).collect();
    let orders = subs.into_iter().map(|(p, s)| (p, s.orders)).collect();
    let players: Vec<PowerId> = config.players.iter().map(|p| p.power).collect();
    Ok(report::awaited_answers(&orders, &players, &passed))
}

/// The deadline of the open phase as `player` reads it, in their zone
/// (`zone::shown`); `None` before the phase's clock starts.
pub(super) fn answer_by(
    dir: &GameDir,
    config: &GameConfig,
    state: &State,
    player: &crate::store::config::PlayerEntry,
    now: DateTime<Utc>,
) -> Result<Option<String>> {
    let Some(clock) = dir.load_clock()?.filter(|c| c.phase == Some(state.phase)) else {
        return Ok(None);
    };
    let schedule = dir.load_schedule()?;
    let d = clock.deadline(now, &config.deadlines, config.tz(), &schedule.absences);
    Ok(Some(crate::zone::shown(d, config.player_tz(player.power))))
}

/// What [`ack_standing`] reads of the game: the submissions stored on
/// disk (`store::submission::load_all`) and the schedule (for READY and
/// WAIT). An ingest run reads them once and keeps them up to date
/// (`mail::ingest::Run`), instead of once a message.
pub struct OnRecord<'a> {
    pub stored: &'a BTreeMap<PowerId, crate::store::submission::Submission>,
    pub schedule: &'a crate::store::clock::Schedule,
}

/// The top of an acknowledgement (issue 33): whether `power` is now in
/// for the open phase, and what still holds the phase open. `stored`: the
/// orders this message stored (`None`: it stored none, and the power's
/// earlier orders, if any, stand).
pub fn ack_standing(
    config: &GameConfig,
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    stored: Option<(&[crate::orders::ast::OrderLine], bool)>,
    record: &OnRecord<'_>,
) -> String {
    let phase = state.phase;
    let mut subs: BTreeMap<PowerId, Vec<crate::orders::ast::OrderLine>> = BTreeMap::new();
    let mut passed: BTreeSet<PowerId> = BTreeSet::new();
    for (p, s) in record.stored {
        if s.phase == phase {
            if s.passed {
                passed.insert(*p);
            }
            subs.insert(*p, s.orders.clone());
        }
    }
    if let Some((o, pass)) = stored {
        subs.insert(power, o.to_vec());
        if pass {
            passed.insert(power);
        } else {
            passed.remove(&power);
        }
    }
    let is_in = |p: &PowerId| {
        subs.get(p)
            .is_some_and(|o| crate::store::submission::counts_in(o, passed.contains(p)))
    };
    let must = rules::roles(scenario, state).must;
    let name = power.name();
    let head = if !must.contains(&power) {
        format!("{name} need not order in phase {phase}; it does not hold the phase open.")
    } else if is_in(&power) {
        format!("{name} is IN for phase {phase}.")
    } else {
        let why = match subs.get(&power) {
            Some(_) => "standing orders alone do not count",
            None => "no order for the phase was accepted (ENTROPY, press, commands and rejected lines do not count)",
        };
        format!("{name} is NOT in for phase {phase}: {why}. Send orders for the phase, or PASS to order nothing.")
    };
    let mut holds: Vec<String> = Vec::new();
    let missing: Vec<&str> = must.iter().filter(|p| !is_in(p)).map(|p| p.name()).collect();
    if !missing.is_empty() {
        holds.push(format!("orders from {}", missing.join(", ")));
    }
    let players: Vec<PowerId> = config.players.iter().map(|p| p.power).collect();
    let passed: Vec<PowerId> = passed.into_iter().collect();
    for p in report::awaited_answers(&subs, &players, &passed) {
        let line = format!("{} (until the deadline at the latest)", p.awaiting(Some(power)));
        if !holds.contains(&line) {
            holds.push(line);
        }
    }
    // READY and WAIT (schedule::with_readiness); whose WAIT it is stays
    // unsaid unless it is the reader's own.
    let said = record.schedule.readiness_in(phase);
    let wait = |p: &PowerId| said.get(p) == Some(&crate::orders::ast::Readiness::Wait);
    if wait(&power) && must.contains(&power) {
        holds.push("your WAIT (until the deadline)".into());
    } else if must.iter().any(wait) {
        holds.push("a WAIT (until the deadline)".into());
    }
    let all_ready = must
        .iter()
        .all(|p| said.get(p) == Some(&crate::orders::ast::Readiness::Ready));
    let tail = if holds.is_empty() && all_ready && !must.is_empty() {
        "Nothing else holds the phase open, and every power that must order is READY: it resolves at the next run."
            .to_string()
    } else if holds.is_empty() {
        format!(
            "Nothing else holds the phase open: it resolves {} minutes after the last orders of a power that must order, unless they change.",
            config.deadlines.change_of_mind_minutes
        )
    } else {
        format!("Still holding the phase open: {}.", holds.join("; "))
    };
    let wrap = textwrap::Options::new(72).word_splitter(textwrap::WordSplitter::NoHyphenation);
    format!("{}\n{}", textwrap::fill(&head, &wrap), textwrap::fill(&tail, &wrap))
}

/// The powers that owe one of [`awaited_answers`], each once.
pub fn awaited_from(awaited: &[report::Proposal]) -> Vec<PowerId> {
    let set: BTreeSet<PowerId> = awaited.iter().map(|p| p.to).collect();
    set.into_iter().collect()
}

/// Tell each power a proposal among `from`'s stored orders is addressed
/// to (a peace offer, an alliance, a gift or a loan) at once, with the
/// answer to send and the phase in which it counts (5.1, 5.2: the
/// proposer's Player Turn, which is the open phase). One message per
/// proposal: storing the same orders again queues nothing new. Returns
/// the ids queued.
pub fn proposal_notices(
    dir: &GameDir,
    config: &GameConfig,
    state: &State,
    from: PowerId,
    orders: &[crate::orders::ast::OrderLine],
    deadline: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<Vec<String>> {
    let mut mine = BTreeMap::new();
    mine.insert(from, orders.to_vec());
    let phase = state.phase.to_string();
    let mut ids = Vec::new();
    for p in report::proposals(&mine) {
        let Some(player) = config.players.iter().find(|x| x.power == p.to) else {
            continue; // an NPC answers through the rules (5.1, 4.71)
        };
        let mut body = format!(
            "{} has ordered, in phase {phase} of game {}:\n\n  {}\n\n",
            from.name(),
            config.game,
            p.text
        );
        // Phase ids and addresses are never split at their hyphens.
        let wrap = textwrap::Options::new(72).word_splitter(textwrap::WordSplitter::NoHyphenation);
        let by = answer_by(dir, config, state, player, now)?
            .or_else(|| deadline.map(|d| crate::zone::shown(d, config.player_tz(player.power))));
        if p.answers.is_empty() {
            body.push_str(&textwrap::fill(
                &format!("It needs no answer; it takes effect when phase {phase} resolves, unless {} changes its orders before then.", from.name()),
                &wrap,
            ));
            if let Some(d) = &by {
                body.push_str(&format!("\n\nDeadline: {d}\n"));
            }
        } else {
            body.push_str(&textwrap::fill(
                &format!(
                    "To answer, send orders for phase {phase} (this phase) with one of these lines; an answer sent in any other phase does not count, and without one the offer is refused:"
                ),
                &wrap,
            ));
            body.push_str("\n\n");
            for a in &p.answers {
                body.push_str(&format!("  {a}\n"));
            }
            // Issue 33: the phase waits for the answer until its deadline.
            if let Some(d) = &by {
                body.push_str(&format!("\nAnswer by: {d}\n"));
                body.push_str(&textwrap::fill(
                    "Until then the phase does not close early: it waits for your answer (or a PASS, which ends the wait) and closes at this deadline at the latest.",
                    &wrap,
                ));
                body.push('\n');
            }
        }
        body.push_str(&format!(
            "\n--\nEmpereur, for game {}. Your order template is in the phase-opening mail.\n",
            config.game
        ));
        let m = game_mail(
            config,
            outbox::stable_id(&["proposal", &config.game, &phase, from.id(), p.to.id(), &p.text]),
            vec![player_addr(player)],
            format!("Empereur {}: {} proposes: {}", config.game, from.name(), p.text),
            body,
            now,
        );
        outbox::queue(dir, &m)?;
        ids.push(m.id);
    }
    Ok(ids)
}
