//! `empereur games --root DIR` (also `status --games DIR`): the
//! moderator's overview of every game hosted under a directory (each
//! subdirectory with a `game.toml`, as `run --games` finds them), one line
//! each: the open phase, its deadline, who is in, who is late, paused or
//! over. Read only: no lock is taken and no clock is started, so it is safe
//! beside a running `run`. A game that cannot be read gets its line with
//! the reason, the others are listed all the same, and the command exits 2.
#![allow(clippy::disallowed_methods)] // adapter

use super::clock;
use crate::ids::PowerId;
use crate::schedule::Due;
use crate::store::GameDir;
use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct GamesArgs {
    /// The directory holding the games (each subdirectory with a game.toml).
    pub root: PathBuf,
}

/// Where a hosted game stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum Standing {
    /// The game has ended (the reason).
    Over {
        why: String,
    },
    Paused,
    /// Waiting for orders; `missing` have none in yet.
    Waiting {
        missing: Vec<PowerId>,
    },
    /// Past the deadline, inside grace; `missing` have none in yet.
    Grace {
        missing: Vec<PowerId>,
    },
    /// Everyone is in; resolves once the change-of-mind delay has passed.
    AllIn,
    /// Everyone is in, but a power owes an answer to a proposal, offer or
    /// cession of this phase (issue 33): the phase waits for it until the
    /// deadline at the latest. `awaiting`: whose answer to what.
    Answering {
        awaiting: Vec<String>,
    },
    /// Everyone is in, but `by` said WAIT: it resolves at the deadline.
    Held {
        by: Vec<PowerId>,
    },
    /// Due now (the next `run` resolves it); `late` sent nothing.
    Due {
        late: Vec<PowerId>,
    },
    /// No clock yet (it starts at the next `run` or `mail`).
    NoClock {
        missing: Vec<PowerId>,
    },
}

/// One game's line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameLine {
    /// The game's directory name under the root.
    pub dir: String,
    pub game: String,
    pub phase: String,
    /// RFC 3339, UTC.
    pub deadline: Option<String>,
    /// The deadline as players read it (the game's time zone).
    #[serde(skip)]
    pub deadline_local: Option<String>,
    /// Powers that must order and have orders in / must order.
    pub in_count: usize,
    pub must_count: usize,
    #[serde(flatten)]
    pub standing: Standing,
}

/// A line of the overview: a game, or why its directory could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listed {
    Game(GameLine),
    Unreadable { dir: String, why: String },
}

/// The overview of every game under `root`, at `now`.
pub fn overview(root: &Path, now: DateTime<Utc>) -> Result<Vec<Listed>> {
    let mut out = Vec::new();
    for d in super::run::game_dirs(root)? {
        let name = d
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push(match game_line(&d, &name, now) {
            Ok(l) => Listed::Game(l),
            Err(e) => Listed::Unreadable {
                dir: name,
                why: format!("{e:#}"),
            },
        });
    }
    Ok(out)
}

fn game_line(path: &Path, name: &str, now: DateTime<Utc>) -> Result<GameLine> {
    let dir = GameDir::new(path);
    let config = dir.load_config()?;
    let scenario = dir.load_scenario(&config)?;
    let state = dir.load_state()?;
    let schedule = dir.load_schedule()?;
    let subs = super::workflow::submitted(&dir)?;
    let roles = crate::rules::roles(&scenario, &state);
    let missing: Vec<PowerId> = roles.must.iter().copied().filter(|p| !subs.contains_key(p)).collect();
    let tz = config.tz();
    let clock = dir.load_clock()?.filter(|c| c.phase == Some(state.phase));
    let deadline = clock
        .as_ref()
        .map(|c| c.deadline(now, &config.deadlines, tz, &schedule.absences));
    let said = schedule.readiness_in(state.phase);
    let standing = match (&state.over, &clock) {
        (Some(why), _) => Standing::Over { why: why.clone() },
        (None, None) => Standing::NoClock {
            missing: missing.clone(),
        },
        (None, Some(c)) => match held(
            &dir,
            &config,
            state.phase,
            c.due(now, &config.deadlines, tz, &schedule.absences, &roles.must, &subs),
            deadline,
            now,
            &roles.must,
        )? {
            Err(awaiting) => Standing::Answering { awaiting },
            Ok(Due::Paused) => Standing::Paused,
            Ok(Due::Waiting { .. }) if missing.is_empty() => Standing::Held {
                by: said
                    .iter()
                    .filter(|(p, w)| **w == crate::orders::ast::Readiness::Wait && roles.must.contains(p))
                    .map(|(p, _)| *p)
                    .collect(),
            },
            Ok(Due::Waiting { .. }) => Standing::Waiting {
                missing: missing.clone(),
            },
            Ok(Due::Grace { .. }) => Standing::Grace {
                missing: missing.clone(),
            },
            Ok(Due::ChangeOfMind { .. }) => Standing::AllIn,
            Ok(Due::Early) => Standing::Due { late: vec![] },
            Ok(Due::Late { missing }) => Standing::Due { late: missing },
        },
    };
    Ok(GameLine {
        dir: name.to_string(),
        game: config.game.clone(),
        phase: state.phase.to_string(),
        deadline: deadline.map(|d| d.to_rfc3339()),
        deadline_local: deadline.map(|d| d.with_timezone(&tz).format("%a %Y-%m-%d %H:%M %Z").to_string()),
        in_count: roles.must.len() - missing.len(),
        must_count: roles.must.len(),
        standing,
    })
}

/// `due` as the answers awaited this phase hold it (issue 33): `Err`
/// with whose answer to what when they hold an early close open.
fn held(
    dir: &GameDir,
    config: &crate::store::config::GameConfig,
    phase: crate::ids::PhaseId,
    due: Due,
    deadline: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    must: &[PowerId],
) -> Result<std::result::Result<Due, Vec<String>>> {
    let Some(deadline) = deadline else {
        return Ok(Ok(due));
    };
    let proposals = crate::mail::compose::awaited_answers(dir, config, phase)?;
    let awaited = crate::mail::compose::awaited_from(&proposals);
    let after = crate::schedule::hold_for_answers(due.clone(), deadline, now, &awaited);
    if after == due {
        let said = dir.load_schedule()?.readiness_in(phase);
        return Ok(Ok(crate::schedule::with_readiness(due, deadline, now, must, &said)));
    }
    Ok(Err(proposals.iter().map(|p| p.awaiting(None)).collect()))
}

fn ids(v: &[PowerId]) -> String {
    v.iter().map(|p| p.id()).collect::<Vec<_>>().join(", ")
}

/// The text line of a game.
pub fn render(l: &GameLine) -> String {
    let what = match &l.standing {
        Standing::Over { why } => format!("over: {why}"),
        Standing::Paused => "paused".to_string(),
        Standing::Waiting { missing } if missing.is_empty() => "waiting".to_string(),
        Standing::Waiting { missing } => format!("waiting for {}", ids(missing)),
        Standing::Grace { missing } => format!("past the deadline, in grace; late: {}", ids(missing)),
        Standing::AllIn => "everyone is in".to_string(),
        Standing::Answering { awaiting } => format!(
            "everyone is in; awaiting {} (until the deadline at the latest)",
            awaiting.join("; ")
        ),
        Standing::Held { by } => format!("everyone is in; WAIT from {}: resolves at the deadline", ids(by)),
        Standing::Due { late } if late.is_empty() => "due now".to_string(),
        Standing::Due { late } => format!("due now; late: {}", ids(late)),
        Standing::NoClock { missing } if missing.is_empty() => "no deadline yet".to_string(),
        Standing::NoClock { missing } => format!("no deadline yet; waiting for {}", ids(missing)),
    };
    let deadline = match (&l.standing, &l.deadline_local) {
        (Standing::Over { .. }, _) => "-".to_string(),
        (_, Some(d)) => d.clone(),
        (_, None) => "-".to_string(),
    };
    format!(
        "{:<12} {:<12} {:<24} {:<26} in {}/{}  {what}",
        l.dir, l.game, l.phase, deadline, l.in_count, l.must_count
    )
}

/// `empereur games --root DIR`
/// What `empereur games` found: every game under `root`, one line each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Games {
    pub root: PathBuf,
    pub lines: Vec<Listed>,
}

impl Games {
    fn unreadable(&self) -> impl Iterator<Item = (&String, &String)> {
        self.lines.iter().filter_map(|l| match l {
            Listed::Unreadable { dir, why } => Some((dir, why)),
            Listed::Game(_) => None,
        })
    }

    /// The JSON and TOML form: the games, and the directories that could
    /// not be read with why.
    fn value(&self) -> serde_json::Value {
        let games: Vec<&GameLine> = self
            .lines
            .iter()
            .filter_map(|l| match l {
                Listed::Game(g) => Some(g),
                Listed::Unreadable { .. } => None,
            })
            .collect();
        let unreadable: Vec<serde_json::Value> = self
            .unreadable()
            .map(|(dir, why)| serde_json::json!({ "dir": dir, "error": why }))
            .collect();
        serde_json::json!({ "games": games, "unreadable": unreadable })
    }
}

impl std::fmt::Display for Games {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.lines.is_empty() {
            writeln!(
                f,
                "no games under {} (a game is a directory with a game.toml)",
                self.root.display()
            )?;
        }
        for l in &self.lines {
            match l {
                Listed::Game(g) => writeln!(f, "{}", render(g))?,
                Listed::Unreadable { dir, why } => writeln!(f, "{dir:<12} cannot be read: {why}")?,
            }
        }
        Ok(())
    }
}

impl super::Summary for Games {
    /// A game that could not be read fails the command (exit 2) after
    /// every game is listed.
    fn failure(&self) -> Option<String> {
        let bad: Vec<&str> = self.unreadable().map(|(dir, _)| dir.as_str()).collect();
        (!bad.is_empty()).then(|| format!("{} game(s) could not be read: {}", bad.len(), bad.join(", ")))
    }
}

impl super::Structured for Games {
    fn json(&self) -> Result<String> {
        Ok(format!("{}\n", serde_json::to_string_pretty(&self.value())?))
    }

    fn toml(&self) -> Result<String> {
        Ok(toml::to_string(&self.value())?)
    }
}

pub fn run(a: &GamesArgs) -> Result<Games> {
    list(&a.root)
}

/// `empereur status --games ROOT`: every game under `root`, one line each
/// (one game's status is [`super::workflow::status`]).
pub fn status_of_games(root: &Path) -> Result<Games> {
    list(root)
}

fn list(root: &Path) -> Result<Games> {
    Ok(Games {
        root: root.to_path_buf(),
        lines: overview(root, clock::now()?)?,
    })
}
