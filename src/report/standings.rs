//! The `Standings` section of a turn report: every power's VP against its
//! goal (7.1), the VP it gained this phase and from where, the provinces
//! it holds, its Gold and who is at war with whom, as narrow lines that
//! read on a phone.
//!
//! Built from the viewer's view of the state ([`State::view_for`], 2.5)
//! and the outcomes the viewer sees, so it shows what that power may
//! see and nothing else: every power's Gold and VP are on the record for
//! all (the public site shows them too), a kingdom's treasury only to its
//! controller (11.x.2). The moderator's copy shows all.

use crate::ids::{Nation, PowerId};
use crate::picture::chart::VpChart;
use crate::rules::Outcome;
use crate::rules::outcome::VpSource;
use crate::scenario::Scenario;
use crate::state::{Control, State};
use crate::store::{GameDir, history};
use anyhow::{Context, Result, anyhow};
use std::collections::BTreeMap;

/// Width of the wrapped lines under the table (the table itself is
/// narrower): a phone shows about 60 columns.
const WIDTH: usize = 60;

/// One power's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub power: PowerId,
    /// Played by the rules, not by a player (3.31).
    pub npc: bool,
    pub vp: i64,
    /// Its national VP goal (7.1, its mat in `powers.toml`).
    pub goal: u32,
    /// VP gained (or lost) this phase.
    pub change: i64,
    /// Where this phase's VP came from, as far as the viewer's outcomes
    /// say; what they do not explain is `Other`.
    pub how: BTreeMap<VpSource, i64>,
    /// Provinces in its colour on the map: its own and its minors'.
    pub provinces: usize,
    pub gold: i64,
}

/// The standings after a phase, as one viewer may see them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standings {
    pub rows: Vec<Row>,
    /// Pairs of powers at war, each once, in the order of `PowerId::ALL`.
    pub wars: Vec<(PowerId, PowerId)>,
    /// Kingdom treasuries the viewer may see: (kingdom, controller, Gold).
    pub kingdoms: Vec<(String, PowerId, i64)>,
}

impl Standings {
    /// The standings after a phase that started from `before` and made
    /// `outcomes`, for `viewer` (`None`: the moderator).
    pub fn new(
        scenario: &Scenario,
        before: &State,
        after: &State,
        outcomes: &[Outcome],
        viewer: Option<PowerId>,
    ) -> Standings {
        let view = match viewer {
            Some(v) => after.view_for(v),
            None => after.clone(),
        };
        let seen: Vec<&Outcome> = outcomes
            .iter()
            .filter(|o| viewer.is_none_or(|v| o.visibility.sees(v)))
            .collect();
        let rows = view
            .powers
            .iter()
            .map(|(&p, ps)| {
                let was = before.powers.get(&p).map_or(ps.vp, |b| b.vp);
                let change = ps.vp - was;
                let mut how: BTreeMap<VpSource, i64> = BTreeMap::new();
                for o in &seen {
                    if let Some(&v) = o.vp.get(&p).filter(|v| **v != 0) {
                        *how.entry(o.vp_source()).or_default() += v;
                    }
                }
                let unexplained = change - how.values().sum::<i64>();
                if unexplained != 0 {
                    *how.entry(VpSource::Other).or_default() += unexplained;
                }
                how.retain(|_, v| *v != 0);
                Row {
                    power: p,
                    npc: ps.control != Control::Player,
                    vp: ps.vp,
                    goal: scenario.powers.get(&p).map_or(0, |s| s.vp_goal),
                    change,
                    how,
                    provinces: provinces_held(&view, p),
                    gold: ps.gold,
                }
            })
            .collect();
        let mut wars: Vec<(PowerId, PowerId)> = Vec::new();
        for (i, a) in PowerId::ALL.iter().enumerate() {
            for b in &PowerId::ALL[i + 1..] {
                if view.relations.at_war(*a, *b) {
                    wars.push((*a, *b));
                }
            }
        }
        let kingdoms = view
            .political
            .kingdoms
            .iter()
            .filter(|(_, k)| after.sees_records_of(viewer, k.controller))
            .map(|(id, k)| (id.clone(), k.controller, k.gold))
            .collect();
        Standings { rows, wars, kingdoms }
    }

    /// The standings the public may read (the observers' reports): the
    /// public view of both states (no pool, no treasury: `State::public_view`)
    /// and `public`, the outcomes every power sees (the caller cuts them
    /// with `site::privacy::public_outcomes`, the site's rule).
    pub fn public(scenario: &Scenario, before: &State, after: &State, public: &[Outcome]) -> Standings {
        let mut s = Standings::new(scenario, &before.public_view(), &after.public_view(), public, None);
        s.kingdoms.clear();
        s
    }

    /// The section's lines: a table of one line a power (at most 46
    /// columns), then this phase's VP by source (a line a power that
    /// gained or lost), the wars and the treasuries the viewer may see,
    /// wrapped at 60 columns.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "  {:<15} {:>8} {:>5} {:>5} {:>5}",
            "Power", "VP/goal", "gain", "prov", "Gold"
        )];
        for r in &self.rows {
            let name = format!("{}{}", r.power.name(), if r.npc { "*" } else { "" });
            let change = match r.change {
                0 => "-".to_string(),
                c => format!("{c:+}"),
            };
            out.push(format!(
                "  {name:<15} {:>8} {change:>5} {:>5} {:>5}",
                format!("{}/{}", r.vp, r.goal),
                r.provinces,
                r.gold
            ));
        }
        if self.rows.iter().any(|r| r.npc) {
            out.push("  * no player: run by the rules (3.31)".to_string());
        }
        let gains: Vec<String> = self
            .rows
            .iter()
            .filter(|r| r.change != 0 || !r.how.is_empty())
            .map(|r| {
                let how: Vec<String> = r.how.iter().map(|(s, v)| format!("{} {v:+}", s.name())).collect();
                format!("    {} {:+}: {}", r.power.name(), r.change, how.join(", "))
            })
            .collect();
        if gains.is_empty() {
            out.push("  VP this phase: no change.".to_string());
        } else {
            out.push("  VP this phase:".to_string());
            out.extend(gains);
        }
        let wars = if self.wars.is_empty() {
            "none".to_string()
        } else {
            self.wars
                .iter()
                .map(|(a, b)| format!("{}-{}", a.name(), b.name()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.extend(wrapped(&format!("At war: {wars}.")));
        if !self.kingdoms.is_empty() {
            let k: Vec<String> = self
                .kingdoms
                .iter()
                .map(|(id, p, g)| format!("{id} ({}) {g} Gold", p.name()))
                .collect();
            out.extend(wrapped(&format!("Kingdom treasuries: {}.", k.join(", "))));
        }
        out
    }
}

/// The provinces drawn in `p`'s colour on the map: those it controls and
/// those of the minors it controls (3.41, 3.45).
fn provinces_held(state: &State, p: PowerId) -> usize {
    state
        .provinces
        .values()
        .filter(|ps| match &ps.controller {
            Some(Nation::Major(q)) => *q == p,
            Some(Nation::Minor(m)) => state.minors.get(m).and_then(|ms| ms.controller) == Some(p),
            None => false,
        })
        .count()
}

/// `text` wrapped at [`WIDTH`], indented by two, the lines after the
/// first by four.
fn wrapped(text: &str) -> Vec<String> {
    let o = textwrap::Options::new(WIDTH)
        .initial_indent("  ")
        .subsequent_indent("    ")
        .break_words(false)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::wrap(text, o).into_iter().map(|l| l.into_owned()).collect()
}

/// The VP of every power over the campaign up to history entry `upto`
/// (its name), for the VP chart: the state the first entry started from,
/// then the state after each entry; an undo takes back the point of the
/// entry it rolled back.
pub fn vp_history(dir: &GameDir, upto: &str) -> Result<VpChart> {
    #[derive(serde::Deserialize)]
    struct Vps {
        powers: BTreeMap<PowerId, Vp>,
    }
    #[derive(serde::Deserialize)]
    struct Vp {
        vp: i64,
    }
    let read = |path: &std::path::Path| -> Result<BTreeMap<PowerId, i64>> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let v: Vps = toml::from_str(&text).map_err(|e| anyhow!("{}: {}", path.display(), e.message().trim()))?;
        Ok(v.powers.into_iter().map(|(p, v)| (p, v.vp)).collect())
    };
    let last = upto.get(..4).and_then(|n| n.parse::<u32>().ok()).unwrap_or(u32::MAX);
    let mut points: Vec<(String, BTreeMap<PowerId, i64>)> = Vec::new();
    for (_, name) in history::list(dir)?.range(..=last) {
        let (rec, _) = history::read_entry(dir, name)?;
        if rec.kind == "undo" {
            if points.len() > 1 {
                points.pop();
            }
            continue;
        }
        let edir = history::entry_dir(dir, name);
        let after = edir.join("state-after.toml");
        if !after.is_file() {
            continue;
        }
        if points.is_empty() {
            points.push(("start".to_string(), read(&edir.join("state-before.toml"))?));
        }
        points.push((rec.phase.to_string(), read(&after)?));
    }
    let mut chart = VpChart::default();
    for (phase, vps) in points {
        chart.phases.push(phase);
        for (p, v) in vps {
            chart.series.entry(p).or_default().push(v);
        }
    }
    Ok(chart)
}

/// The VP chart after history entry `upto`, which resolved `phase`, as
/// the PNG a turn report carries: `vp-<phase>.png`. The same for every
/// recipient: every power's VP is on the record for all.
pub fn vp_chart_png(dir: &GameDir, upto: &str, phase: &str) -> Result<crate::picture::File> {
    let png = vp_history(dir, upto)?.png()?;
    Ok((format!("vp-{phase}.png"), "image/png", png))
}
